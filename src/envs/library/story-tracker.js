// Story tracker: read a short story of people moving, taking, dropping and handing objects; answer questions.
class Environment {
  static meta = {
    name: "story-tracker",
    skill: "Language Understanding",
    description:
      "A short story with varied phrasing, pronouns, hand-overs and distracting non-events tells how three people move through rooms carrying objects. Answer three questions about where things are, who holds them and where someone came from, one per turn.",
    maxTurns: 6,
    tools: [],
  };

  static PEOPLE = [
    { name: "Mary", pronoun: "She" },
    { name: "John", pronoun: "He" },
    { name: "Sandra", pronoun: "She" },
    { name: "Daniel", pronoun: "He" },
    { name: "Fatima", pronoun: "She" },
    { name: "Kenji", pronoun: "He" },
  ];
  static ROOMS = ["kitchen", "garden", "hallway", "office", "bedroom", "cellar", "library", "garage"];
  static OBJECTS = ["apple", "football", "key", "lantern", "book", "umbrella", "violin"];

  static pick(items) {
    return items[Math.floor(Math.random() * items.length)];
  }

  static shuffled(items) {
    const out = items.slice();
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  }

  reset(seed) {
    const cast = Environment.shuffled(Environment.PEOPLE);
    this.people = cast.slice(0, 3);
    this.outsider = cast[3].name;
    this.rooms = Environment.shuffled(Environment.ROOMS).slice(0, 4);
    this.objects = Environment.shuffled(Environment.OBJECTS).slice(0, 3);
    // State: where each person is, where each object lies (room) or who carries it (holder).
    this.at = this.people.map(() => Environment.pick(this.rooms));
    this.place = this.objects.map(() => Environment.pick(this.rooms));
    this.holder = this.objects.map(() => -1);
    this.trail = this.people.map((_, p) => [this.at[p]]);
    this.moved = this.objects.map(() => false);
    const opening =
      this.people.map((p, i) => `${p.name} is in the ${this.at[i]}`).join(", ") +
      ". " +
      this.objects.map((o, i) => `The ${o} lies in the ${this.place[i]}`).join(". ") +
      ".";
    const sentences = [];
    let lastSubject = -1;
    for (let k = 0; k < 14; k++) {
      const event = this.randomEvent();
      const subject = event.subject;
      const name = this.people[subject].name;
      // Use a pronoun only right after a one-person sentence about the same person, so it is unambiguous.
      const who = subject === lastSubject ? this.people[subject].pronoun : name;
      sentences.push(event.text(who));
      lastSubject = event.solo ? subject : -1;
    }
    this.story = `${opening}\n${sentences.join(" ")}`;
    this.questions = this.makeQuestions();
    this.index = 0;
    this.correct = 0;
    this.done = false;
    return {
      observation:
        `Read the story, then answer ${this.questions.length} questions, one per turn, each with a single room, name, number or "nobody" in a box (e.g. \\boxed{${this.outsider}}).\n\n` +
        `${this.story}\n\nQuestion 1: ${this.questions[0].text}`,
      info: { answers: this.questions.map((q) => q.answer) },
    };
  }

  // One valid event, applied to the state; returns {subject, solo, text(who)}.
  randomEvent() {
    const R = Environment.pick;
    for (;;) {
      const p = Math.floor(Math.random() * this.people.length);
      const here = this.at[p];
      const kind = R(["move", "move", "move", "take", "take", "drop", "give", "idle"]);
      if (kind === "move") {
        const to = R(this.rooms.filter((r) => r !== here));
        this.at[p] = to;
        this.trail[p].push(to);
        return { subject: p, solo: true, text: (w) => R([`${w} went to the ${to}.`, `${w} walked into the ${to}.`, `${w} journeyed to the ${to}.`, `${w} moved to the ${to}.`]) };
      }
      if (kind === "take") {
        const options = this.objects.map((_, o) => o).filter((o) => this.holder[o] === -1 && this.place[o] === here);
        if (options.length === 0) continue;
        const o = R(options);
        this.holder[o] = p;
        this.moved[o] = true;
        const obj = this.objects[o];
        return { subject: p, solo: true, text: (w) => R([`${w} picked up the ${obj}.`, `${w} grabbed the ${obj}.`, `${w} took the ${obj} there.`]) };
      }
      if (kind === "drop") {
        const options = this.objects.map((_, o) => o).filter((o) => this.holder[o] === p);
        if (options.length === 0) continue;
        const o = R(options);
        this.holder[o] = -1;
        this.place[o] = here;
        const obj = this.objects[o];
        return { subject: p, solo: true, text: (w) => R([`${w} put down the ${obj}.`, `${w} dropped the ${obj}.`, `${w} left the ${obj} in the ${here}.`]) };
      }
      if (kind === "give") {
        const held = this.objects.map((_, o) => o).filter((o) => this.holder[o] === p);
        const mates = this.people.map((_, q) => q).filter((q) => q !== p && this.at[q] === here);
        if (held.length === 0 || mates.length === 0) continue;
        const o = R(held);
        const q = R(mates);
        this.holder[o] = q;
        const obj = this.objects[o];
        const other = this.people[q].name;
        return { subject: p, solo: false, text: (w) => R([`${w} handed the ${obj} to ${other}.`, `${w} gave the ${obj} to ${other}.`]) };
      }
      // A sentence that changes nothing: a reader must not be fooled by it.
      const elsewhere = R(this.rooms.filter((r) => r !== here));
      const texts = [(w) => `${w} thought about going to the ${elsewhere} but stayed put.`, (w) => `${w} did not go to the ${elsewhere}.`];
      // Looking in vain is only plausible for an object that is in another room.
      const away = this.objects.filter((_, o) => this.roomOf(o) !== here);
      if (away.length > 0) {
        const obj = R(away);
        texts.push((w) => `${w} looked for the ${obj} but did not find it.`);
      }
      const text = R(texts);
      return { subject: p, solo: true, text };
    }
  }

  roomOf(o) {
    return this.holder[o] === -1 ? this.place[o] : this.at[this.holder[o]];
  }

  // Three questions of different kinds, preferring objects and people the story changed.
  makeQuestions() {
    const R = Environment.pick;
    const objs = this.objects.map((_, o) => o);
    const movedObjs = objs.filter((o) => this.moved[o]);
    const pool = movedObjs.length > 0 ? movedObjs : objs;
    const where = R(pool);
    const held = R(pool.filter((o) => o !== where).concat(objs.filter((o) => o !== where)));
    const questions = [
      { text: `Where is the ${this.objects[where]} now?`, answer: this.roomOf(where), kind: "room" },
      {
        text: `Who is holding the ${this.objects[held]} at the end?`,
        answer: this.holder[held] === -1 ? "nobody" : this.people[this.holder[held]].name,
        kind: "person",
      },
    ];
    const travellers = this.people.map((_, p) => p).filter((p) => this.trail[p].length >= 2);
    if (travellers.length > 0) {
      const p = R(travellers);
      const trail = this.trail[p];
      questions.push({ text: `Where was ${this.people[p].name} just before going to the ${trail[trail.length - 1]} for the last time?`, answer: trail[trail.length - 2], kind: "room" });
    } else {
      const p = Math.floor(Math.random() * this.people.length);
      questions.push({ text: `How many objects is ${this.people[p].name} carrying at the end?`, answer: String(this.holder.filter((h) => h === p).length), kind: "number" });
    }
    return questions;
  }

  // The single room/person/number an answer names, or null when it names none or several.
  interpret(answer, kind) {
    const words = answer.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);
    let options = [];
    if (kind === "room") options = this.rooms;
    if (kind === "person") options = this.people.map((p) => p.name.toLowerCase()).concat(["nobody"]);
    if (kind === "number") options = ["0", "1", "2", "3"];
    const named = options.filter((x) => words.includes(x));
    if (kind === "person" && (words.includes("none") || (words.includes("no") && words.includes("one")))) named.push("nobody");
    return named.length === 1 ? named[0] : null;
  }

  step(action) {
    if (this.done) return { observation: "All questions have been answered.", reward: 0, terminated: true, truncated: false, info: {} };
    const q = this.questions[this.index];
    const answer = (action.answer ?? "").trim();
    if (answer === "") {
      return {
        observation: `Put your answer in a box, e.g. \\boxed{${this.outsider}}.\nQuestion ${this.index + 1}: ${q.text}`,
        reward: 0,
        terminated: false,
        truncated: false,
        info: { valid: false },
      };
    }
    const given = this.interpret(answer, q.kind);
    const right = given !== null && given === q.answer.toLowerCase();
    if (right) this.correct++;
    this.index++;
    const verdict = right ? "Correct." : "Not correct.";
    const reward = right ? 1 / this.questions.length : 0;
    if (this.index === this.questions.length) {
      this.done = true;
      return { observation: `${verdict} You answered ${this.correct} of ${this.questions.length} questions correctly.`, reward, terminated: true, truncated: false, info: { correct: this.correct } };
    }
    return { observation: `${verdict}\nQuestion ${this.index + 1}: ${this.questions[this.index].text}`, reward, terminated: false, truncated: false, info: { right } };
  }

  hint() {
    const people = this.people.map((p, i) => `${p.name} went ${this.trail[i].join(" -> ")}`);
    const objects = this.objects.map((o, i) => `the ${o} ends ${this.holder[i] === -1 ? `on the floor of the ${this.place[i]}` : `with ${this.people[this.holder[i]].name}`}`);
    return `Routes: ${people.join("; ")}. At the end ${objects.join(", ")}.`;
  }

  solve() {
    const q = this.questions[Math.min(this.index, this.questions.length - 1)];
    return { text: `\\boxed{${q.answer}}` };
  }
}
