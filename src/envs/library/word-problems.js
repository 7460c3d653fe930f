// Word problems: multi-step arithmetic stories (shopping, tanks, ages, savings, timetables, work, mixing, travel).
class Environment {
  static meta = {
    name: "word-problems",
    skill: "Mathematical Reasoning",
    description:
      "A short story problem drawn from eight multi-step families (discounts and change, filling tanks, ages, growing savings, timetables, shared work, dilution, average speed) with freshly drawn numbers. Answer with one number; two attempts, full reward only on the first.",
    maxTurns: 4,
    tools: [],
  };

  static NAMES = ["Lena", "Omar", "Priya", "Tomas", "Mei", "Kwame", "Sofia", "Ivan", "Amara", "Diego"];
  static ATTEMPTS = 2;

  static int(lo, hi) {
    return lo + Math.floor(Math.random() * (hi - lo + 1));
  }

  static pick(items) {
    return items[Math.floor(Math.random() * items.length)];
  }

  static gcd(a, b) {
    return b === 0 ? a : Environment.gcd(b, a % b);
  }

  // Each family returns {text, answer, hint} or null when the drawn numbers do not fit (redraw).
  static FAMILIES = [
    function shopping(who) {
      const goods = [["notebook", "notebooks"], ["pen", "pens"], ["mug", "mugs"], ["candle", "candles"], ["sock pair", "sock pairs"]];
      const first = Environment.pick(goods);
      const second = Environment.pick(goods.filter((g) => g !== first));
      const [a, p, b, q] = [Environment.int(2, 9), Environment.int(3, 15), Environment.int(2, 9), Environment.int(2, 12)];
      const full = a * p + b * q;
      const discounts = [10, 20, 25, 50].filter((d) => (full * d) % 100 === 0);
      if (discounts.length === 0) return null;
      const d = Environment.pick(discounts);
      const paid = full - (full * d) / 100;
      const note = [20, 50, 100, 200, 500].find((x) => x > paid);
      if (note - paid < 10) return null;
      return {
        text: `${who} buys ${a} ${first[1]} at $${p} each and ${b} ${second[1]} at $${q} each. The shop takes ${d}% off the whole bill. ${who} pays with a $${note} note. How many dollars of change does ${who} get back?`,
        answer: note - paid,
        hint: `The full price is $${full}; ${d}% of it is $${full - paid}, so ${who} pays $${paid}.`,
      };
    },
    function tank() {
      const [net, minutes, start] = [Environment.int(2, 9), Environment.int(10, 40), 5 * Environment.int(0, 10)];
      const leak = Environment.int(1, 8);
      const a = Environment.int(1, net + leak - 1);
      const b = net + leak - a;
      const capacity = start + net * minutes;
      return {
        text: `A tank holds ${capacity} litres and already contains ${start} litres. Pipe A pours in ${a} litres per minute and pipe B pours in ${b} litres per minute, while a leak drains ${leak} litres per minute. All three run together from now on. After how many minutes is the tank exactly full?`,
        answer: minutes,
        hint: `The tank gains ${a} + ${b} - ${leak} = ${net} litres per minute and is missing ${capacity - start} litres.`,
      };
    },
    function ages(who) {
      const [young, times, years] = [Environment.int(4, 20), Environment.int(2, 4), Environment.int(2, 10)];
      const gap = (times - 1) * (young + years);
      return {
        text: `${who} is ${gap} years older than a niece, Ada. In ${years} years ${who} will be exactly ${times} times as old as Ada. How old is ${who} now?`,
        answer: young + gap,
        hint: `Call Ada's age now x; then x + ${gap} + ${years} = ${times} * (x + ${years}). Solve for x, then add ${gap}.`,
      };
    },
    function savings(who) {
      const [first, raise, week] = [Environment.int(5, 20), Environment.int(2, 8), Environment.int(10, 18)];
      const total = (n) => n * first + (raise * n * (n - 1)) / 2;
      // A round goal strictly between the totals of weeks week-1 and week.
      const goal = Math.ceil((total(week - 1) + 1) / 10) * 10;
      if (goal > total(week)) return null;
      return {
        text: `${who} saves $${first} in the first week, and every week after that saves $${raise} more than the week before. In which week does ${who}'s total savings first reach at least $${goal}?`,
        answer: week,
        hint: `After n weeks the total is ${first}n + ${raise}n(n-1)/2; after week ${week - 1} it is $${total(week - 1)}.`,
      };
    },
    function timetable() {
      const periods = [Environment.int(4, 30), Environment.int(4, 30), Environment.int(4, 30)];
      if (new Set(periods).size < 3) return null;
      const lcm = periods.reduce((x, y) => (x * y) / Environment.gcd(x, y));
      if (lcm < 30 || lcm > 600 || periods.includes(lcm)) return null;
      return {
        text: `Three bus lines leave the central station together at 6:00. Line 1 departs every ${periods[0]} minutes, line 2 every ${periods[1]} minutes and line 3 every ${periods[2]} minutes. How many minutes after 6:00 do all three lines next depart at the same moment?`,
        answer: lcm,
        hint: `You need the least common multiple of ${periods.join(", ")}: compare their prime factorisations.`,
      };
    },
    function sharedWork(who) {
      const [x, y, together] = [Environment.int(3, 12), Environment.int(3, 12), Environment.int(1, 3)];
      // Minutes the second painter still needs alone: 60 * y * (1 - together * (1/x + 1/y)).
      const numerator = 60 * (x * y - together * (x + y));
      if (x === y || numerator <= 0 || numerator % x !== 0 || numerator / x < 10) return null;
      return {
        text: `Painting a fence takes Ada ${x} hours alone and ${who} ${y} hours alone. They paint together for ${together} hour${together > 1 ? "s" : ""}, then Ada leaves and ${who} finishes alone. How many more minutes does ${who} need?`,
        answer: numerator / x,
        hint: `Together they paint 1/${x} + 1/${y} of the fence per hour; find the fraction left after ${together} hour(s), then divide by ${who}'s rate of 1/${y} per hour.`,
      };
    },
    function dilution(who) {
      const [litres, strong, weak] = [Environment.int(2, 20), 5 * Environment.int(4, 18), 5 * Environment.int(1, 8)];
      const water = (litres * (strong - weak)) / weak;
      if (weak >= strong || !Number.isInteger(water) || water < 10) return null;
      return {
        text: `${who} has ${litres} litres of syrup that is ${strong}% sugar. How many litres of pure water must be added so that the mixture is exactly ${weak}% sugar?`,
        answer: water,
        hint: `The sugar stays ${(litres * strong) / 100} litres; it must be ${weak}% of the new total volume.`,
      };
    },
    function averageSpeed(who) {
      const [v1, t1, v2, t2] = [10 * Environment.int(3, 12), Environment.int(1, 4), 10 * Environment.int(3, 12), Environment.int(1, 4)];
      const average = (v1 * t1 + v2 * t2) / (t1 + t2);
      if (v1 === v2 || !Number.isInteger(average)) return null;
      return {
        text: `${who} drives ${v1 * t1} km at ${v1} km/h, then another ${v2 * t2} km at ${v2} km/h. What is ${who}'s average speed over the whole trip, in km/h?`,
        answer: average,
        hint: `Average speed is total distance over total time: the legs take ${t1} h and ${t2} h.`,
      };
    },
  ];

  reset(seed) {
    const family = Math.floor(Math.random() * Environment.FAMILIES.length);
    let problem = null;
    while (problem === null) problem = Environment.FAMILIES[family](Environment.pick(Environment.NAMES));
    this.problem = problem;
    this.attemptsLeft = Environment.ATTEMPTS;
    this.done = false;
    return {
      observation: `${problem.text}\nAnswer with a single number in a box: \\boxed{your number}. You have ${Environment.ATTEMPTS} attempts; only a correct first attempt earns full reward.`,
      info: { family: Environment.FAMILIES[family].name },
    };
  }

  step(action) {
    if (this.done) return { observation: "The problem is closed.", reward: 0, terminated: true, truncated: false, info: {} };
    const m = action.answer === null ? null : /-?\d+(?:\.\d+)?/.exec(action.answer.replace(/,/g, ""));
    if (m === null) {
      return {
        observation: "No number found: put your final numeric answer in a box, as in \\boxed{17}.",
        reward: 0,
        terminated: false,
        truncated: false,
        info: { valid: false },
      };
    }
    this.attemptsLeft--;
    if (Math.abs(Number(m[0]) - this.problem.answer) < 1e-9) {
      this.done = true;
      const reward = this.attemptsLeft === Environment.ATTEMPTS - 1 ? 1 : 0.4;
      return { observation: `Correct: ${m[0]}.`, reward, terminated: true, truncated: false, info: { correct: true } };
    }
    if (this.attemptsLeft === 0) {
      this.done = true;
      return { observation: `${m[0]} is not correct. No attempts left.`, reward: 0, terminated: true, truncated: false, info: { correct: false } };
    }
    return { observation: `${m[0]} is not correct. One attempt left.`, reward: 0, terminated: false, truncated: false, info: { correct: false } };
  }

  hint() {
    return this.problem.hint;
  }

  solve() {
    return { text: `\\boxed{${this.problem.answer}}` };
  }
}
