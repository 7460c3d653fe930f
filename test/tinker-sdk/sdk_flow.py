"""TEST DRIVER. Runs the official `tinker` SDK through SPADE's training flow against servers.

Usage: sdk_flow.py FLOW_JSON BASE_URL...  (the API key in TINKER_API_KEY). FLOW_JSON holds the
base model, LoRA settings, datums (in the JSON API's shape), the losses, Adam settings, the
checkpoint name and the sampling request. Runs the flow against each server in turn, each with
its own `ServiceClient` (one process: importing the SDK is most of a flow's time), and prints the
results as one JSON line, a list in the servers' order.
"""
import json
import sys

import tinker
from tinker import types

flow_path, base_urls = sys.argv[1], sys.argv[2:]
with open(flow_path) as f:
    flow = json.load(f)


def datum(d):
    return types.Datum(
        model_input=types.ModelInput(chunks=[types.EncodedTextChunk(tokens=c["tokens"]) for c in d["model_input"]["chunks"]]),
        loss_fn_inputs={k: types.TensorData(data=t["data"], dtype=t["dtype"], shape=t["shape"]) for k, t in d["loss_fn_inputs"].items()},
    )


def tensors(outputs):
    return [{k: {"data": [float(x) for x in v.data], "dtype": v.dtype, "shape": list(v.shape)} for k, v in o.items()} for o in outputs]


def run(base_url):
    service = tinker.ServiceClient(base_url=base_url)
    training = service.create_lora_training_client(base_model=flow["base_model"], rank=flow["rank"], seed=flow["seed"]).result()
    data = [datum(d) for d in flow["datums"]]
    results = {"forward_backward": []}
    for loss in flow["losses"]:
        out = training.forward_backward(data, loss["name"], loss.get("config")).result()
        results["forward_backward"].append({"loss_fn_outputs": tensors(out.loss_fn_outputs), "metrics": out.metrics})
    adam = flow["adam"]
    optim = training.optim_step(types.AdamParams(**adam)).result()
    results["optim_metrics"] = optim.metrics
    path = training.save_weights_for_sampler(flow["checkpoint"]).result().path
    results["sampler_path"] = path
    sampler = service.create_sampling_client(model_path=path).result()
    s = flow["sample"]
    params = types.SamplingParams(max_tokens=s["max_tokens"], stop=s["stop"], temperature=s["temperature"], seed=s["seed"])
    sampled = sampler.sample(prompt=types.ModelInput.from_ints(s["prompt"]), num_samples=1, sampling_params=params).result()
    results["sequences"] = [{"tokens": list(q.tokens), "logprobs": [float(x) for x in q.logprobs], "stop_reason": q.stop_reason} for q in sampled.sequences]
    return results


print(json.dumps([run(base_url) for base_url in base_urls]))
