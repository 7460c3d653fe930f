"""Regenerates src/policy/third_party/tinker-proto/tinker_public_pb.ts from the schema the official `tinker` SDK ships.

The SDK publishes its wire schema only as compiled Python (`tinker/proto/tinker_public_pb2.py`);
this script takes the FileDescriptorProto from it and runs protoc-gen-es (a protoc plugin) on it,
so the TypeScript code comes from exactly the SDK's schema. Run with the project's .venv after
`bash scripts/setup-python.sh`:  .venv/bin/python scripts/gen-tinker-proto.py
"""
import os
import subprocess
import sys

from google.protobuf import descriptor_pb2
from google.protobuf.compiler import plugin_pb2
import tinker
from tinker.proto import tinker_public_pb2

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# third_party/: generated from a third-party schema, not ours to edit or deduplicate.
out_dir = os.path.join(root, "src", "policy", "third_party", "tinker-proto")
plugin = os.path.join(root, "node_modules", ".bin", "protoc-gen-es")

proto = descriptor_pb2.FileDescriptorProto()
tinker_public_pb2.DESCRIPTOR.CopyToProto(proto)
request = plugin_pb2.CodeGeneratorRequest()
request.file_to_generate.append(proto.name)
request.parameter = "target=ts,import_extension=js"
request.proto_file.append(proto)
request.compiler_version.major = 0

result = subprocess.run([plugin], input=request.SerializeToString(), capture_output=True, check=True)
response = plugin_pb2.CodeGeneratorResponse()
response.ParseFromString(result.stdout)
if response.error:
    sys.exit(f"protoc-gen-es: {response.error}")
os.makedirs(out_dir, exist_ok=True)
for file in response.file:
    path = os.path.join(out_dir, os.path.basename(file.name))
    header = f"// Schema: tinker/proto/{proto.name} of the official `tinker` SDK {tinker.__version__} (PyPI).\n"
    with open(path, "w") as f:
        f.write(header + file.content)
    print(f"wrote {os.path.relpath(path, root)} ({proto.package}, {len(proto.message_type)} messages)")
