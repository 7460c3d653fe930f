"""SPADE environments from Python, through OpenEnv (openenv-core 0.3.0).

`spade serve` speaks OpenEnv's protocol, so openenv-core's GenericEnvClient works as is; this shim
adds the few things that are SPADE-specific: the server's index, the two action shapes, a chat
prompt from an observation (verifiers' ``prompt_renderer``) and an ``environment_factory`` class
for TRL's GRPOTrainer. It needs only openenv-core and the standard library. Copy this folder next
to your training script, or put ``python/`` of the SPADE repository on ``PYTHONPATH``.
"""

import inspect
import json
import urllib.request
from typing import Any

from openenv.core import GenericEnvClient

__all__ = [
    "list_environments",
    "list_tools",
    "connect",
    "text_action",
    "tool_action",
    "render_prompt",
    "trl_environment_factory",
]


def _get_json(url: str, body: dict[str, Any] | None = None, timeout_s: float = 30.0) -> Any:
    data = None if body is None else json.dumps(body).encode("utf-8")
    request = urllib.request.Request(url, data=data, headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=timeout_s) as response:
        return json.loads(response.read().decode("utf-8"))


def list_environments(server_url: str) -> list[dict[str, Any]]:
    """The environments a `spade serve` server offers: name, path, skill, tools, maxTurns, stats."""
    return _get_json(server_url.rstrip("/") + "/")["environments"]


def list_tools(server_url: str, name: str) -> list[dict[str, Any]]:
    """The MCP tools of one environment (`tools/list`), `final_answer` included."""
    answer = _get_json(f"{server_url.rstrip('/')}/{name}/mcp", {"jsonrpc": "2.0", "method": "tools/list", "params": {}, "id": 1})
    return answer["result"]["tools"]


def connect(server_url: str, name: str, **client_options: Any) -> GenericEnvClient:
    """An async GenericEnvClient for environment `name` (call ``.sync()`` for the blocking one)."""
    return GenericEnvClient(base_url=f"{server_url.rstrip('/')}/{name}", **client_options)


def text_action(text: str) -> dict[str, Any]:
    """A game move or final answer; SPADE parses it as it parses a model's message."""
    return {"text": text}


def tool_action(tool_name: str, **arguments: Any) -> dict[str, Any]:
    """One tool call, as OpenEnv's ``CallToolAction``."""
    return {"type": "call_tool", "tool_name": tool_name, "arguments": arguments}


def render_prompt(observation: dict[str, Any], **_context: Any) -> list[dict[str, str]]:
    """Chat messages for an observation: verifiers' ``OpenEnvEnv(prompt_renderer=...)``."""
    text = observation.get("text") or ""
    results = observation.get("tool_results") or []
    if results and not text:
        text = "\n".join(r.get("content", "") for r in results)
    return [{"role": "user", "content": text or "(no observation)"}]


_JSON_TYPES = {"string": str, "integer": int, "number": float, "boolean": bool, "array": list, "object": dict}


def _tool_method(tool: dict[str, Any]):
    """A method that calls `tool`, with a signature and docstring TRL turns into its schema."""
    schema = tool.get("inputSchema") or {}
    properties = schema.get("properties") or {}
    required = set(schema.get("required") or [])
    params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    annotations: dict[str, Any] = {"return": str}
    arg_lines = []
    for arg, spec in properties.items():
        py_type = _JSON_TYPES.get(spec.get("type"), str) if isinstance(spec, dict) else str
        annotations[arg] = py_type
        default = inspect.Parameter.empty if arg in required else None
        params.append(inspect.Parameter(arg, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=py_type))
        description = (spec.get("description") if isinstance(spec, dict) else None) or arg
        arg_lines.append(f"    {arg}: {description}")
    name = tool["name"]

    def method(self, **arguments: Any) -> str:
        arguments = {k: v for k, v in arguments.items() if v is not None}
        return self._act(tool_action(name, **arguments))

    method.__name__ = name
    method.__signature__ = inspect.Signature(params, return_annotation=str)
    method.__annotations__ = annotations
    args_doc = ("\n\nArgs:\n" + "\n".join(arg_lines)) if arg_lines else ""
    method.__doc__ = f"{tool.get('description') or name}{args_doc}\n\nReturns:\n    The tool's result."
    return method


def trl_environment_factory(server_url: str, name: str, seed_column: str = "seed") -> type:
    """A class for ``GRPOTrainer(environment_factory=...)`` playing environment `name`.

    Every instance holds its own WebSocket session (its own sandboxed instance on the server).
    ``reset(**row)`` starts an episode (seeded by the dataset column `seed_column` when present) and
    returns the first observation. The environment's tools become methods; ``final_answer(text)``
    sends a move or the final answer. ``reward`` is the episode return so far, ``done`` whether it
    ended; calls after the end raise ``ValueError`` (TRL feeds the message back to the model).
    ``_close()`` ends the session.
    """
    tools = list_tools(server_url, name)

    class SpadeEnvironment:
        def __init__(self) -> None:
            self._client = connect(server_url, name).sync()
            self._client.connect()
            self.reward = 0.0
            self.done = False

        def reset(self, **kwargs: Any) -> str:
            seed = kwargs.get(seed_column)
            result = self._client.reset(**({"seed": int(seed)} if seed is not None else {}))
            self.reward = 0.0
            self.done = False
            return result.observation["text"]

        def _act(self, action: dict[str, Any]) -> str:
            if self.done:
                raise ValueError("The episode is over.")
            result = self._client.step(action)
            self.reward = max(-1.0, min(1.0, self.reward + float(result.reward or 0.0)))
            self.done = bool(result.done)
            observation = result.observation
            return observation.get("result") if observation.get("result") is not None else observation["text"]

        def _close(self) -> None:
            # Private on purpose: TRL exposes every public method other than reset as a tool.
            self._client.close()

    for tool in tools:
        if tool["name"] == "final_answer":
            continue
        setattr(SpadeEnvironment, tool["name"], _tool_method(tool))

    def final_answer(self, text: str) -> str:
        """Send your move or your final answer as text (for example \\boxed{42}).

        Args:
            text: the move or final answer

        Returns:
            What the environment answers.
        """
        return self._act(text_action(text))

    SpadeEnvironment.final_answer = final_answer
    SpadeEnvironment.__name__ = f"Spade_{name.replace('-', '_')}"
    return SpadeEnvironment
