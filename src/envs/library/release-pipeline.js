// Release pipeline: orchestrate a CI/CD API where each call needs an id from the previous one
// (ref -> commit sha -> build -> artifact digest -> test run -> approval ticket -> deploy) and
// the final deploy carries a nested config derived from production's current settings.
class Environment {
  static meta = {
    name: "release-pipeline",
    skill: "API Orchestration",
    description:
      "Release a tagged version to production through a mock CI/CD API: resolve the tag to a commit, read production's architecture and settings, build, test the artifact, get an approval ticket and deploy with a nested config (replicas, edited environment variables). Deploy preconditions are enforced.",
    maxTurns: 16,
    tools: [
      {
        type: "function",
        function: {
          name: "resolve_ref",
          description: "Resolve a branch or tag of a repository to its commit sha.",
          parameters: {
            type: "object",
            properties: { repo: { type: "string" }, ref: { type: "string" } },
            required: ["repo", "ref"],
          },
        },
      },
      {
        type: "function",
        function: {
          name: "get_service",
          description: "Current deployment of a service in one environment: image, node architecture, replicas, environment variables.",
          parameters: {
            type: "object",
            properties: { service: { type: "string" }, environment: { type: "string", enum: ["staging", "production"] } },
            required: ["service", "environment"],
          },
        },
      },
      {
        type: "function",
        function: {
          name: "start_build",
          description: "Build a commit into an image artifact. Builds finish immediately.",
          parameters: {
            type: "object",
            properties: {
              repo: { type: "string" },
              commit_sha: { type: "string" },
              options: {
                type: "object",
                properties: {
                  arch: { type: "string", enum: ["amd64", "arm64"] },
                  profile: { type: "string", enum: ["release", "debug"] },
                },
                required: ["arch", "profile"],
              },
            },
            required: ["repo", "commit_sha", "options"],
          },
        },
      },
      {
        type: "function",
        function: {
          name: "run_tests",
          description: "Run test suites against a built artifact.",
          parameters: {
            type: "object",
            properties: {
              artifact: { type: "object", properties: { digest: { type: "string" } }, required: ["digest"] },
              suites: { type: "array", minItems: 1, items: { type: "string", enum: ["unit", "integration", "e2e", "smoke"] } },
            },
            required: ["artifact", "suites"],
          },
        },
      },
      {
        type: "function",
        function: {
          name: "request_approval",
          description: "Open a change ticket for a production deploy; the listed teams approve it.",
          parameters: {
            type: "object",
            properties: {
              change: {
                type: "object",
                properties: { service: { type: "string" }, digest: { type: "string" } },
                required: ["service", "digest"],
              },
              approvers: {
                type: "array",
                minItems: 1,
                items: { type: "object", properties: { team: { type: "string" } }, required: ["team"] },
              },
            },
            required: ["change", "approvers"],
          },
        },
      },
      {
        type: "function",
        function: {
          name: "deploy",
          description: "Deploy an artifact. Production needs passing tests on that digest and an approval ticket for it. Production deploys are final.",
          parameters: {
            type: "object",
            properties: {
              service: { type: "string" },
              environment: { type: "string", enum: ["staging", "production"] },
              artifact: { type: "object", properties: { digest: { type: "string" } }, required: ["digest"] },
              config: {
                type: "object",
                properties: {
                  replicas: { type: "integer", minimum: 1, maximum: 50 },
                  env_vars: {
                    type: "array",
                    items: { type: "object", properties: { name: { type: "string" }, value: { type: "string" } }, required: ["name", "value"] },
                  },
                },
                required: ["replicas", "env_vars"],
              },
              approval_ticket: { type: "string" },
            },
            required: ["service", "environment", "artifact", "config"],
          },
        },
      },
    ],
  };

  // FNV-1a: stable fake hashes for commit shas and image digests.
  static hash(text, length) {
    let out = "";
    for (let round = 0; out.length < length; round++) {
      let h = 0x811c9dc5 ^ round;
      for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
      out += h.toString(16).padStart(8, "0");
    }
    return out.slice(0, length);
  }

  reset(seed) {
    const rint = (lo, hi) => lo + Math.floor(Math.random() * (hi - lo + 1));
    const pick = (xs) => xs[Math.floor(Math.random() * xs.length)];
    const salt = String(rint(0, 1e9));
    const svc = pick([["payments-api", "payments"], ["search-indexer", "search"], ["auth-gateway", "auth"], ["notify-worker", "notify"]]);
    this.repo = `acme/${svc[0]}`;
    this.service = svc[1];
    const major = rint(1, 4);
    const minor = rint(0, 9);
    this.tag = `v${major}.${minor}.${rint(1, 9)}`;
    this.refs = {
      [this.tag]: Environment.hash(`tag${salt}`, 40),
      main: Environment.hash(`main${salt}`, 40),
      [`release/${major}.${minor}`]: Environment.hash(`rel${salt}`, 40),
    };
    this.arch = pick(["amd64", "arm64"]);
    const logLevel = pick(["info", "debug"]);
    const baseVars = [
      { name: "LOG_LEVEL", value: logLevel },
      { name: "DB_POOL_SIZE", value: String(rint(5, 20)) },
      { name: "REGION", value: pick(["eu-west-1", "us-east-2", "ap-south-1"]) },
      { name: "DEBUG_SQL", value: "true" },
      { name: "CACHE_TTL_S", value: String(rint(3, 12) * 10) },
    ];
    this.envs = {
      production: { image: `sha256:${Environment.hash(`old${salt}`, 24)}`, node_arch: this.arch, replicas: rint(2, 6), env_vars: baseVars },
      staging: { image: `sha256:${Environment.hash(`stg${salt}`, 24)}`, node_arch: this.arch === "amd64" ? "arm64" : "amd64", replicas: 1, env_vars: baseVars.map((v) => ({ ...v, value: v.name === "LOG_LEVEL" ? "debug" : v.value })) },
    };
    this.replicas = this.envs.production.replicas + rint(1, 4);
    this.suites = pick([["unit", "integration"], ["unit", "e2e"], ["integration", "smoke"], ["unit", "integration", "smoke"]]);
    this.team = pick(["sre", "security", "release-managers"]);
    this.flag = pick(["NEW_CHECKOUT", "FAST_INDEX", "STRICT_TLS", "BATCH_SEND"]);
    this.expectedVars = baseVars
      .filter((v) => v.name !== "DEBUG_SQL")
      .map((v) => (v.name === "LOG_LEVEL" ? { name: v.name, value: "warn" } : { ...v }))
      .concat([{ name: `FEATURE_${this.flag}`, value: "on" }]);
    this.target = Environment.digest(this.refs[this.tag], this.arch, "release");
    this.builds = [];
    this.testRuns = [];
    this.tickets = [];
    this.readProduction = false;
    this.resolved = false;
    this.done = false;
    return {
      observation:
        "You operate a CI/CD API (resolve_ref, get_service, start_build, run_tests, request_approval, deploy).\n" +
        `Release request: ship tag ${this.tag} of ${this.repo} to the ${this.service} service in production. ` +
        `Build it in the release profile for the CPU architecture production runs on; run the ${this.suites.slice(0, -1).join(", ")} and ${this.suites[this.suites.length - 1]} suites on that artifact; ` +
        `get the change approved by the ${this.team} team; deploy with ${this.replicas} replicas. ` +
        `Keep production's current environment variables except: LOG_LEVEL becomes warn, DEBUG_SQL is removed, and FEATURE_${this.flag}=on is added.`,
      info: {},
    };
  }

  static digest(sha, arch, profile) {
    return `sha256:${Environment.hash(`${sha}/${arch}/${profile}`, 24)}`;
  }

  static schemaError(schema, value, path) {
    if (schema.enum && !schema.enum.includes(value)) return `${path} must be one of ${schema.enum.join(", ")}`;
    if (schema.type === "object") {
      if (typeof value !== "object" || value === null || Array.isArray(value)) return `${path} must be an object`;
      for (const key of schema.required || []) if (!(key in value)) return `${path}.${key} is required`;
      for (const key of Object.keys(value)) {
        if (!schema.properties[key]) return `${path}.${key} is not a known field`;
        const err = Environment.schemaError(schema.properties[key], value[key], `${path}.${key}`);
        if (err) return err;
      }
    } else if (schema.type === "array") {
      if (!Array.isArray(value)) return `${path} must be an array`;
      if (value.length < (schema.minItems || 0)) return `${path} must not be empty`;
      for (let i = 0; i < value.length; i++) {
        const err = Environment.schemaError(schema.items, value[i], `${path}[${i}]`);
        if (err) return err;
      }
    } else if (schema.type === "string" && typeof value !== "string") return `${path} must be a string`;
    else if (schema.type === "integer" && (!Number.isInteger(value) || value < schema.minimum || value > schema.maximum)) {
      return `${path} must be an integer from ${schema.minimum} to ${schema.maximum}`;
    }
    return null;
  }

  call(name, args) {
    const spec = Environment.meta.tools.find((t) => t.function.name === name);
    if (!spec) return { error: "UNKNOWN_TOOL", message: `No tool named ${JSON.stringify(name)}.` };
    const err = Environment.schemaError(spec.function.parameters, args, "arguments");
    if (err) return { error: "INVALID_ARGUMENTS", message: err };
    const svcOk = (s) => s.trim().toLowerCase() === this.service;
    if (name === "resolve_ref") {
      if (args.repo.trim() !== this.repo) return { error: "REPO_NOT_FOUND", message: `Unknown repository; this pipeline builds ${this.repo}.` };
      const sha = this.refs[args.ref.trim()];
      if (!sha) return { error: "REF_NOT_FOUND", message: `No branch or tag named ${JSON.stringify(args.ref)}.` };
      if (args.ref.trim() === this.tag) this.resolved = true;
      return { ref: args.ref.trim(), commit_sha: sha };
    }
    if (name === "get_service") {
      if (!svcOk(args.service)) return { error: "SERVICE_NOT_FOUND", message: "No such service." };
      if (args.environment === "production") this.readProduction = true;
      return JSON.parse(JSON.stringify({ service: this.service, environment: args.environment, ...this.envs[args.environment] }));
    }
    if (name === "start_build") {
      const sha = args.commit_sha.trim().toLowerCase();
      if (args.repo.trim() !== this.repo || !Object.values(this.refs).includes(sha)) return { error: "COMMIT_NOT_FOUND", message: "No such commit in that repository; resolve a ref first." };
      const digest = Environment.digest(sha, args.options.arch, args.options.profile);
      const build = { build_id: `b-${this.builds.length + 101}`, status: "succeeded", commit_sha: sha, artifact: { digest, arch: args.options.arch, profile: args.options.profile } };
      this.builds.push(build);
      return build;
    }
    if (name === "run_tests") {
      const digest = args.artifact.digest.trim();
      if (!this.builds.some((b) => b.artifact.digest === digest)) return { error: "ARTIFACT_NOT_FOUND", message: "No build produced that digest." };
      const run = { run_id: `t-${this.testRuns.length + 501}`, digest, results: [...new Set(args.suites)].map((suite) => ({ suite, passed: true })) };
      this.testRuns.push(run);
      return run;
    }
    if (name === "request_approval") {
      const digest = args.change.digest.trim();
      if (!svcOk(args.change.service)) return { error: "SERVICE_NOT_FOUND", message: "No such service." };
      if (!this.builds.some((b) => b.artifact.digest === digest)) return { error: "ARTIFACT_NOT_FOUND", message: "No build produced that digest." };
      const teams = args.approvers.map((a) => a.team.trim().toLowerCase());
      const ticket = { ticket: `CHG-${this.tickets.length + 7001}`, digest, teams, status: "approved" };
      this.tickets.push(ticket);
      return { ticket: ticket.ticket, status: "approved", approved_by: teams };
    }
    return this.deploy(args);
  }

  deploy(args) {
    if (args.service.trim().toLowerCase() !== this.service) return { error: "SERVICE_NOT_FOUND", message: "No such service." };
    const digest = args.artifact.digest.trim();
    const build = this.builds.find((b) => b.artifact.digest === digest);
    if (!build) return { error: "ARTIFACT_NOT_FOUND", message: "No build produced that digest." };
    if (args.environment === "production") {
      const tested = new Set(this.testRuns.filter((r) => r.digest === digest).flatMap((r) => r.results.map((x) => x.suite)));
      const missing = this.suites.filter((s) => !tested.has(s));
      if (missing.length) return { error: "TESTS_REQUIRED", message: `Production needs passing ${missing.join(", ")} tests on this digest.` };
      const ticket = this.tickets.find((t) => t.ticket === (args.approval_ticket || "").trim() && t.digest === digest);
      if (!ticket) return { error: "APPROVAL_REQUIRED", message: "Production needs approval_ticket of an approved change for this digest." };
      if (!ticket.teams.includes(this.team)) return { error: "APPROVAL_REQUIRED", message: "The ticket lacks the approval this release policy requires." };
      this.done = true;
      this.deployed = { digest, replicas: args.config.replicas, env_vars: args.config.env_vars.map((v) => ({ name: v.name.trim(), value: v.value.trim() })) };
      return { status: "deployed", environment: "production", digest };
    }
    this.envs.staging = { ...this.envs.staging, image: digest, replicas: args.config.replicas, env_vars: args.config.env_vars };
    return { status: "deployed", environment: "staging", digest };
  }

  deployOk() {
    const d = this.deployed;
    if (!d || d.digest !== this.target || d.replicas !== this.replicas) return false;
    const key = (vars) => vars.map((v) => `${v.name}=${v.value}`).sort().join("\n");
    return key(d.env_vars) === key(this.expectedVars);
  }

  step(action) {
    const calls = Array.isArray(action.toolCalls) ? action.toolCalls : [];
    const out = { observation: "", reward: 0, terminated: false, truncated: false, info: {} };
    if (this.done) {
      out.observation = "The release is over.";
      out.terminated = true;
      if (calls.length) out.toolResults = calls.map((c) => ({ id: c.id, content: "The release is over." }));
      return out;
    }
    if (!calls.length) {
      out.observation = "Drive the release with the CI/CD tools; it ends with the production deploy.";
      return out;
    }
    out.toolResults = calls.map((c) => ({ id: c.id, content: this.done ? "The release is over." : JSON.stringify(this.call(c.name, c.arguments)) }));
    out.observation = "Tool results returned.";
    if (this.done) {
      const ok = this.deployOk();
      out.terminated = true;
      out.reward = ok ? 1 : 0;
      out.observation = ok ? "Production is healthy on the new release." : "Production now runs something other than the requested release and settings.";
      out.info = { success: ok };
    }
    return out;
  }

  hint() {
    return (
      `${this.tag} is commit ${this.refs[this.tag].slice(0, 12)}... (not main or the release branch). Production runs on ${this.arch}, so build arch ${this.arch}, profile release: digest ${this.target}. ` +
      `Test suites: ${this.suites.join(", ")}. Approvers: [{team: "${this.team}"}]. Deploy replicas ${this.replicas} with env_vars ${JSON.stringify(this.expectedVars)} and the ticket.`
    );
  }

  solve() {
    if (!this.resolved) return { toolCalls: [{ name: "resolve_ref", arguments: { repo: this.repo, ref: this.tag } }] };
    if (!this.readProduction) return { toolCalls: [{ name: "get_service", arguments: { service: this.service, environment: "production" } }] };
    if (!this.builds.some((b) => b.artifact.digest === this.target)) {
      return { toolCalls: [{ name: "start_build", arguments: { repo: this.repo, commit_sha: this.refs[this.tag], options: { arch: this.arch, profile: "release" } } }] };
    }
    const tested = new Set(this.testRuns.filter((r) => r.digest === this.target).flatMap((r) => r.results.map((x) => x.suite)));
    if (this.suites.some((s) => !tested.has(s))) return { toolCalls: [{ name: "run_tests", arguments: { artifact: { digest: this.target }, suites: this.suites } }] };
    const ticket = this.tickets.find((t) => t.digest === this.target && t.teams.includes(this.team));
    if (!ticket) {
      return { toolCalls: [{ name: "request_approval", arguments: { change: { service: this.service, digest: this.target }, approvers: [{ team: this.team }] } }] };
    }
    return {
      toolCalls: [
        {
          name: "deploy",
          arguments: {
            service: this.service,
            environment: "production",
            artifact: { digest: this.target },
            config: { replicas: this.replicas, env_vars: this.expectedVars.map((v) => ({ ...v })) },
            approval_ticket: ticket.ticket,
          },
        },
      ],
    };
  }
}
