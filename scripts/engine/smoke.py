"""Engine-side smoke check in plain HTTP/JSON (no SPADE code): every call the training client
makes, against a running engine (scripts/engine/launch.py), with the base model's logprobs
checked against the numpy reference (scripts/engine/reference.py).

    python scripts/engine/smoke.py --url http://127.0.0.1:PORT --model DIR
"""

from __future__ import annotations

import argparse
import json
import math
import time
import urllib.error
import urllib.request

import reference


def post(url: str, path: str, body: dict) -> tuple[int, dict]:
    request = urllib.request.Request(f"{url}/api/v1/{path}", data=json.dumps(body).encode(), headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=330) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read() or b"null")


def result(url: str, answer: tuple[int, dict]) -> dict:
    status, body = answer
    assert status == 200, (status, body)
    while True:
        status, out = post(url, "retrieve_future", {"request_id": body["request_id"]})
        if status == 408 or (status == 200 and out.get("type") == "try_again"):
            continue
        assert status == 200, (status, out)
        return out


def datum(tokens: list[int], weights: list[float], advantages: list[float], logprobs: list[float]) -> dict:
    tensor = lambda data, dtype: {"data": data, "dtype": dtype, "shape": [len(data)]}  # noqa: E731
    return {
        "model_input": {"chunks": [{"type": "encoded_text", "tokens": tokens[:-1]}]},
        "loss_fn_inputs": {
            "target_tokens": tensor(tokens[1:], "int64"),
            "weights": tensor(weights, "float32"),
            "advantages": tensor(advantages, "float32"),
            "logprobs": tensor(logprobs, "float32"),
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--model", required=True)
    args = parser.parse_args()
    url, model = args.url, args.model
    timings: dict[str, float] = {}

    def timed(name: str, fn):
        start = time.time()
        out = fn()
        timings[name] = round(time.time() - start, 3)
        return out

    session = post(url, "create_session", {"tags": [], "user_metadata": {}, "sdk_version": "smoke", "type": "create_session"})[1]["session_id"]
    status, created = post(url, "create_model", {"session_id": session, "base_model": model, "lora_config": {"rank": 8, "seed": 0}})
    out = timed("create_model", lambda: result(url, (status, created)))
    model_id = created["model_id"]
    print("create_model ->", out)

    seq = [258, 117, 115, 101, 114, 10, 104, 105, 259, 10, 258, 97, 115, 115, 105, 115, 116, 97, 110, 116, 10, 111, 107, 259]
    want = reference.logprobs(model, seq)
    n = len(seq) - 1
    weights = [0.0] * 20 + [1.0] * (n - 20)
    sampling = [w - 0.1 for w in want]
    adv = [0.5] * n
    fb = timed("forward_backward#1", lambda: result(url, post(url, "forward_backward", {"model_id": model_id, "forward_backward_input": {"data": [datum(seq, weights, adv, sampling)], "loss_fn": "importance_sampling"}})))
    got = fb["loss_fn_outputs"][0]
    lp = got["logprobs"]["data"]
    err = max(abs(a - b) for a, b in zip(lp, want))
    print(f"forward_backward: keys={sorted(fb)} metrics={fb['metrics']} max|logprob - numpy|={err:.2e}")
    assert err < 1e-4, err
    loss = got["elementwise_loss"]["data"]
    expect = [-(math.exp(l - s) * a) * w for l, s, a, w in zip(lp, sampling, adv, weights)]
    print("elementwise loss err", max(abs(a - b) for a, b in zip(loss, expect)))
    out = timed("optim_step", lambda: result(url, post(url, "optim_step", {"model_id": model_id, "adam_params": {"learning_rate": 0.01, "beta1": 0.9, "beta2": 0.95, "eps": 1e-8}})))
    print("optim_step ->", out)
    timed("forward_backward#2", lambda: result(url, post(url, "forward_backward", {"model_id": model_id, "forward_backward_input": {"data": [datum(seq, weights, adv, sampling)], "loss_fn": "ppo"}})))
    saved = timed("save_weights_for_sampler", lambda: result(url, post(url, "save_weights_for_sampler", {"model_id": model_id, "path": "step-1", "type": "save_weights_for_sampler"})))
    print("save_weights_for_sampler ->", saved)
    params = {"max_tokens": 8, "stop": [259, 257], "temperature": 1.0, "seed": 3}
    prompt = {"chunks": [{"type": "encoded_text", "tokens": seq[:11]}]}
    sample = timed("asample(model_path)", lambda: result(url, post(url, "asample", {"model_path": saved["path"], "num_samples": 2, "prompt": prompt, "sampling_params": params, "type": "sample"})))
    print("asample(model_path) ->", json.dumps(sample)[:300])
    base = timed("asample(base_model)", lambda: result(url, post(url, "asample", {"base_model": model, "num_samples": 1, "prompt": prompt, "sampling_params": params, "type": "sample"})))
    s0 = base["sequences"][0]
    ref = reference.logprobs(model, seq[:11] + s0["tokens"])[10:]
    print("base sample logprob err vs numpy", max(abs(a - b) for a, b in zip(s0["logprobs"], ref)))
    status, bad = post(url, "forward_backward", {"model_id": "model_nope", "forward_backward_input": {"data": [], "loss_fn": "ppo"}})
    print("unknown model ->", status, bad)
    print("timings", json.dumps(timings))


if __name__ == "__main__":
    main()
