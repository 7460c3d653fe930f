// Smart home: bring a house into a requested "scene" through a device API. Several targets are
// relative to the current state (half the brightness, 1.5 degrees warmer), devices must be on
// before their settings change, the lock needs a PIN, and untouched devices must stay as they were.
class Environment {
  static meta = {
    name: "smart-home",
    skill: "State Modification",
    description:
      "Set up a named scene (movie night, good night, work from home, dinner) across 13 smart-home devices: read current states, apply absolute and relative changes with nested state objects, respect power and PIN preconditions, change nothing else, then finish.",
    maxTurns: 22,
    tools: [
      {
        type: "function",
        function: {
          name: "list_devices",
          description: "List devices (id, name, room, type), optionally filtered.",
          parameters: {
            type: "object",
            properties: {
              filter: {
                type: "object",
                properties: {
                  room: { type: "string", enum: ["living room", "kitchen", "bedroom", "office", "hallway"] },
                  type: { type: "string", enum: ["light", "blinds", "tv", "speaker", "thermostat", "lock"] },
                },
              },
            },
          },
        },
      },
      {
        type: "function",
        function: {
          name: "get_state",
          description: "Current state of one device.",
          parameters: { type: "object", properties: { device_id: { type: "string" } }, required: ["device_id"] },
        },
      },
      {
        type: "function",
        function: {
          name: "set_state",
          description:
            "Change some fields of one device's state. Lights, TVs and speakers must be on (or switched on in the same call) before other fields change. Locks need auth.",
          parameters: {
            type: "object",
            properties: {
              device_id: { type: "string" },
              state: {
                type: "object",
                properties: {
                  power: { type: "string", enum: ["on", "off"] },
                  brightness: { type: "integer", minimum: 0, maximum: 100 },
                  color: { type: "string", enum: ["warm", "neutral", "cool"] },
                  position: { type: "integer", minimum: 0, maximum: 100, description: "blinds: 0 closed, 100 open" },
                  input: { type: "string", enum: ["hdmi1", "hdmi2", "streaming"] },
                  volume: { type: "integer", minimum: 0, maximum: 100 },
                  source: { type: "string", enum: ["radio", "bluetooth", "tv"] },
                  mode: { type: "string", enum: ["heat", "cool", "off"] },
                  target_c: { type: "number", minimum: 16, maximum: 28, description: "multiples of 0.5" },
                  locked: { type: "boolean" },
                },
              },
              auth: { type: "object", properties: { pin: { type: "string" } }, required: ["pin"] },
            },
            required: ["device_id", "state"],
          },
        },
      },
      {
        type: "function",
        function: {
          name: "finish",
          description: "Declare the scene ready. Ends the task.",
          parameters: { type: "object", properties: { summary: { type: "string" } } },
        },
      },
    ],
  };

  static FIELDS = {
    light: ["power", "brightness", "color"],
    blinds: ["position"],
    tv: ["power", "input"],
    speaker: ["power", "volume", "source"],
    thermostat: ["mode", "target_c"],
    lock: ["locked"],
  };

  reset(seed) {
    const rint = (lo, hi) => lo + Math.floor(Math.random() * (hi - lo + 1));
    const pick = (xs) => xs[Math.floor(Math.random() * xs.length)];
    const make = (name, room, type) => {
      const prefix = { light: "lt", blinds: "bl", tv: "tv", speaker: "sp", thermostat: "th", lock: "lk" }[type];
      const on = Math.random() < 0.6 ? "on" : "off";
      const state = {
        light: () => ({ power: on, brightness: rint(3, 20) * 5, color: pick(["warm", "neutral", "cool"]) }),
        blinds: () => ({ position: rint(2, 10) * 10 }),
        tv: () => ({ power: on, input: pick(["hdmi1", "hdmi2", "streaming"]) }),
        speaker: () => ({ power: on, volume: rint(2, 14) * 5, source: pick(["radio", "bluetooth", "tv"]) }),
        thermostat: () => ({ mode: pick(["heat", "cool", "off"]), target_c: rint(36, 48) / 2 }),
        lock: () => ({ locked: false }),
      }[type]();
      return { device_id: `${prefix}-${rint(100, 999)}`, name, room, type, state };
    };
    this.devices = [
      make("Ceiling light", "living room", "light"),
      make("Floor lamp", "living room", "light"),
      make("Living room blinds", "living room", "blinds"),
      make("TV", "living room", "tv"),
      make("Speaker", "living room", "speaker"),
      make("Pendant lights", "kitchen", "light"),
      make("Under-cabinet light", "kitchen", "light"),
      make("Bedside lamp", "bedroom", "light"),
      make("Bedroom blinds", "bedroom", "blinds"),
      make("Desk lamp", "office", "light"),
      make("Office blinds", "office", "blinds"),
      make("Front door", "hallway", "lock"),
      make("Thermostat", "hallway", "thermostat"),
    ];
    const ids = new Set();
    for (const d of this.devices) {
      while (ids.has(d.device_id)) d.device_id = `${d.device_id.slice(0, 3)}${rint(100, 999)}`;
      ids.add(d.device_id);
    }
    this.pin = String(rint(1000, 9999));
    this.initial = this.devices.map((d) => JSON.parse(JSON.stringify(d.state)));
    this.scene = pick(["movie night", "good night", "work from home", "dinner"]);
    this.plan(rint);
    this.finished = false;
    this.listed = false;
    this.readIds = [];
    return {
      observation:
        "You control a smart home through an API (list_devices, get_state, set_state, finish). " +
        `The resident says: "Set up ${this.scene}: ${this.request}" ` +
        "Change only what the request asks for and leave every other device and setting as it is. Call finish when the scene is ready.",
      info: { scene: this.scene },
    };
  }

  dev(name) {
    return this.devices.find((d) => d.name === name);
  }

  // The request text and the expected changes (device name -> fields) for this episode's scene.
  plan(rint) {
    const want = {};
    const thermo = this.dev("Thermostat").state;
    let text = "";
    if (this.scene === "movie night") {
      const volume = rint(3, 8) * 5;
      for (const n of ["Ceiling light", "Floor lamp"]) {
        const d = this.dev(n);
        d.state.power = "on";
        want[n] = { brightness: Math.floor(d.state.brightness / 2), color: "warm" };
      }
      this.dev("Living room blinds").state.position = rint(3, 10) * 10;
      want["Living room blinds"] = { position: 0 };
      want.TV = { power: "on", input: "streaming" };
      want.Speaker = { power: "on", source: "tv", volume };
      want.Thermostat = { mode: "heat", target_c: Math.min(28, thermo.target_c + 1.5) };
      text = `dim both living-room lights to half their current brightness (round down) and make them warm, close the living-room blinds fully, put the TV on streaming, play the speaker from the TV at volume ${volume}, and heat the house to 1.5 degrees above the current thermostat target.`;
    } else if (this.scene === "good night") {
      const glow = rint(1, 4) * 5;
      const night = rint(32, 38) / 2;
      for (const d of this.devices) if (d.type === "light" && d.name !== "Bedside lamp") want[d.name] = { power: "off" };
      this.dev("Pendant lights").state.power = "on";
      want["Bedside lamp"] = { power: "on", brightness: glow, color: "warm" };
      want["Bedroom blinds"] = { position: 0 };
      want.TV = { power: "off" };
      want.Speaker = { power: "off" };
      want["Front door"] = { locked: true };
      want.Thermostat = { mode: "heat", target_c: night };
      text = `turn off every light except the bedside lamp, which should glow warm at brightness ${glow}; close the bedroom blinds; switch off the TV and the speaker; lock the front door (PIN ${this.pin}); heat to ${night} degrees.`;
    } else if (this.scene === "work from home") {
      const blinds = this.dev("Office blinds");
      blinds.state.position = rint(2, 6) * 10;
      want["Desk lamp"] = { power: "on", brightness: 80, color: "cool" };
      want["Office blinds"] = { position: blinds.state.position + 30 };
      want.Speaker = { power: "off" };
      this.dev("Speaker").state.power = "on";
      want["Pendant lights"] = { power: "off" };
      want["Under-cabinet light"] = { power: "off" };
      want.Thermostat = { mode: "heat", target_c: Math.min(28, thermo.target_c + 1) };
      text = "desk lamp on at brightness 80 in cool white; open the office blinds 30 points more than they are now; switch off the living-room speaker; turn off both kitchen lights; and raise the thermostat target by 1 degree in heat mode.";
    } else {
      for (const n of ["Pendant lights", "Under-cabinet light"]) {
        const d = this.dev(n);
        d.state.brightness = Math.min(d.state.brightness, 70);
        want[n] = { power: "on", brightness: d.state.brightness + 25, color: "warm" };
      }
      const volume = rint(2, 6) * 5;
      want.Speaker = { power: "on", source: "radio", volume };
      want["Ceiling light"] = { power: "on", brightness: 60 };
      want.TV = { power: "off" };
      this.dev("TV").state.power = "on";
      text = `both kitchen lights on, warm, each 25 points brighter than its current brightness setting; the living-room ceiling light on at 60; the radio on the speaker at volume ${volume}; and the TV off.`;
    }
    this.initial = this.devices.map((d) => JSON.parse(JSON.stringify(d.state)));
    this.expected = this.devices.map((d, i) => ({ ...this.initial[i], ...(want[d.name] || {}) }));
    this.request = text;
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
    } else if (schema.type === "string" && typeof value !== "string") return `${path} must be a string`;
    else if (schema.type === "boolean" && typeof value !== "boolean") return `${path} must be true or false`;
    else if (schema.type === "integer" || schema.type === "number") {
      const ok = schema.type === "integer" ? Number.isInteger(value) : typeof value === "number" && Number.isFinite(value);
      if (!ok || value < schema.minimum || value > schema.maximum) return `${path} must be a${schema.type === "integer" ? "n integer" : " number"} from ${schema.minimum} to ${schema.maximum}`;
    }
    return null;
  }

  setState(args) {
    const d = this.devices.find((x) => x.device_id === args.device_id.trim());
    if (!d) return { error: "NOT_FOUND", message: "No device with that id; use list_devices." };
    const changes = args.state;
    const allowed = Environment.FIELDS[d.type];
    const bad = Object.keys(changes).find((k) => !allowed.includes(k));
    if (bad) return { error: "UNSUPPORTED_FIELD", message: `A ${d.type} has no field "${bad}" (fields: ${allowed.join(", ")}).` };
    if (Object.keys(changes).length === 0) return { error: "NOTHING_TO_CHANGE", message: "state is empty." };
    if (d.type === "lock" && (!args.auth || args.auth.pin.trim() !== this.pin)) return { error: "AUTH_REQUIRED", message: "Locks need auth.pin with the correct PIN." };
    if (d.type === "thermostat" && "target_c" in changes && changes.target_c * 2 !== Math.round(changes.target_c * 2)) {
      return { error: "INVALID_VALUE", message: "target_c must be a multiple of 0.5." };
    }
    const powered = allowed.includes("power");
    const willBeOn = (changes.power || d.state.power) === "on";
    const touchesSettings = Object.keys(changes).some((k) => k !== "power");
    if (powered && touchesSettings && !willBeOn) {
      return { error: "DEVICE_OFF", message: `${d.name} is off. Switch it on first, or send power "on" in the same call.` };
    }
    Object.assign(d.state, changes);
    return { device_id: d.device_id, state: { ...d.state } };
  }

  call(name, args) {
    const spec = Environment.meta.tools.find((t) => t.function.name === name);
    if (!spec) return { error: "UNKNOWN_TOOL", message: `No tool named ${JSON.stringify(name)}.` };
    const err = Environment.schemaError(spec.function.parameters, args, "arguments");
    if (err) return { error: "INVALID_ARGUMENTS", message: err };
    if (name === "list_devices") {
      const f = args.filter || {};
      this.listed = true;
      return {
        devices: this.devices
          .filter((d) => (!f.room || d.room === f.room) && (!f.type || d.type === f.type))
          .map((d) => ({ device_id: d.device_id, name: d.name, room: d.room, type: d.type })),
      };
    }
    if (name === "get_state") {
      const d = this.devices.find((x) => x.device_id === args.device_id.trim());
      if (!d) return { error: "NOT_FOUND", message: "No device with that id; use list_devices." };
      if (!this.readIds.includes(d.device_id)) this.readIds.push(d.device_id);
      return { device_id: d.device_id, name: d.name, state: { ...d.state } };
    }
    if (name === "set_state") return this.setState(args);
    this.finished = true;
    return { status: "finished" };
  }

  wrongDevices() {
    return this.devices.filter((d, i) => JSON.stringify(Environment.FIELDS[d.type].map((k) => d.state[k])) !== JSON.stringify(Environment.FIELDS[d.type].map((k) => this.expected[i][k])));
  }

  step(action) {
    const calls = Array.isArray(action.toolCalls) ? action.toolCalls : [];
    const out = { observation: "", reward: 0, terminated: false, truncated: false, info: {} };
    if (this.finished) {
      out.observation = "The scene is already finished.";
      out.terminated = true;
      if (calls.length) out.toolResults = calls.map((c) => ({ id: c.id, content: "Finished already." }));
      return out;
    }
    if (!calls.length) {
      out.observation = "Use the device tools; call finish when the scene is ready.";
      return out;
    }
    out.toolResults = calls.map((c) => ({ id: c.id, content: this.finished ? "Finished already." : JSON.stringify(this.call(c.name, c.arguments)) }));
    out.observation = "Tool results returned.";
    if (this.finished) {
      const wrong = this.wrongDevices();
      out.terminated = true;
      out.reward = wrong.length === 0 ? 1 : 0;
      out.observation = wrong.length === 0 ? "The resident is happy with the scene." : `The resident is not happy: ${wrong.length} device(s) are not as requested.`;
      out.info = { success: wrong.length === 0, wrongDevices: wrong.length };
    }
    return out;
  }

  hint() {
    const lines = this.devices
      .map((d, i) => {
        const diff = Environment.FIELDS[d.type].filter((k) => this.initial[i][k] !== this.expected[i][k]);
        return diff.length ? `${d.name} (${d.device_id}): ${diff.map((k) => `${k} ${this.expected[i][k]}`).join(", ")}` : null;
      })
      .filter((x) => x);
    return `Target changes: ${lines.join("; ")}. Everything else stays as it is.${this.scene === "good night" ? ` Lock with auth {pin: "${this.pin}"}.` : ""}`;
  }

  solve() {
    if (!this.listed) {
      return { toolCalls: [{ name: "list_devices", arguments: {} }] };
    }
    for (const d of this.wrongDevices()) {
      const i = this.devices.indexOf(d);
      // Relative targets are read before they are written.
      const relative = this.scene !== "good night" && ["light", "thermostat", "blinds"].includes(d.type) && !this.readIds.includes(d.device_id);
      if (relative) return { toolCalls: [{ name: "get_state", arguments: { device_id: d.device_id } }] };
      const state = {};
      for (const k of Environment.FIELDS[d.type]) if (d.state[k] !== this.expected[i][k]) state[k] = this.expected[i][k];
      if ("power" in d.state && this.expected[i].power === "on" && d.state.power !== "on") state.power = "on";
      const args = { device_id: d.device_id, state };
      if (d.type === "lock") args.auth = { pin: this.pin };
      return { toolCalls: [{ name: "set_state", arguments: args }] };
    }
    return { toolCalls: [{ name: "finish", arguments: { summary: `${this.scene} is ready.` } }] };
  }
}
