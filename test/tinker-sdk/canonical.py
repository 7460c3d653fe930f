"""TEST DRIVER. Reads a JSON list of hex `ForwardBackwardRequest` bodies (uncompressed) on stdin and
prints, per body, the official SDK's schema re-serializing it deterministically (map entries in
key order) and that serialization zstd-compressed as the SDK compresses (`ZstdCompressor().compress`)."""
import json
import sys

import zstandard
from tinker.proto import tinker_public_pb2

out = []
for body in json.load(sys.stdin):
    message = tinker_public_pb2.ForwardBackwardRequest()
    message.ParseFromString(bytes.fromhex(body))
    canonical = message.SerializeToString(deterministic=True)
    out.append({"deterministic": canonical.hex(), "zstd": zstandard.ZstdCompressor().compress(canonical).hex()})
print(json.dumps(out))
