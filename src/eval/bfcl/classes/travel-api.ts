/**
 * @module eval/bfcl/classes/travel-api
 * Port of upstream's `TravelAPI` (travel_booking.py): a token, credit cards, bookings and
 * insurance, with ids drawn from `random.Random(141053)`. Long context adds shared padding
 * cards and bookings.
 */
import * as py from "../../python/index.js";
import type { PyDict, PyValue } from "../../python/index.js";
import { type Args, type BfclApi, methodTable, opt, req, stateFields, tableGet } from "../api.js";
import type { BfclSession } from "../session.js";
import { parseDateTime } from "./datetime.js";
import { ALL_AIRPORTS, AIRPORT_BY_CITY, BASE_COSTS, EXCHANGE_RATES } from "./travel-data.js";

const CLASS_FACTOR: Record<string, bigint> = { economy: 1n, business: 2n, first: 5n };

/** TravelAPI's public attributes from the scenario, in `vars()` order (then `long_context`). */
const TRAVEL_FIELDS = stateFields<TravelAPI>([
  ["credit_card_list", "creditCardList", () => new Map()],
  ["booking_record", "bookingRecord", () => new Map()],
  ["access_token", "accessToken", () => null],
  ["token_type", "tokenType", () => null],
  ["token_expires_in", "tokenExpiresIn", () => null],
  ["token_scope", "tokenScope", () => null],
  ["user_first_name", "userFirstName", () => null],
  ["user_last_name", "userLastName", () => null],
  ["budget_limit", "budgetLimit", () => null],
]);

/** Port of upstream's TravelAPI. */
export class TravelAPI implements BfclApi {
  readonly className = "TravelAPI";
  creditCardList: PyValue = new Map();
  bookingRecord: PyValue = new Map();
  accessToken: PyValue = null;
  tokenType: PyValue = null;
  tokenExpiresIn: PyValue = null;
  tokenScope: PyValue = null;
  userFirstName: PyValue = null;
  userLastName: PyValue = null;
  budgetLimit: PyValue = null;
  longContext = false;
  private random = new py.PyRandom(141053);
  private flightCostLookup: PyDict = new Map();

  constructor(private readonly session: BfclSession) {}

  loadScenario(scenario: PyDict, longContext: boolean): void {
    const seed = py.getOrMake(scenario, "random_seed", () => 141053n);
    this.random = new py.PyRandom(typeof seed === "bigint" ? seed : 141053n);
    TRAVEL_FIELDS.load(this, scenario);
    this.longContext = longContext;
    if (longContext) {
      // The padding objects are shared with every other instance of the session, as in Python.
      for (const [list, name] of [
        [this.creditCardList, "CREDIT_CARD_EXTENSION"],
        [this.bookingRecord, "BOOKING_RECORD_EXTENSION"],
      ] as const) {
        const target = py.asDict(list);
        for (const [id, info] of py.asDict(this.session.longContextValue(name)))
          if (!py.contains(target, id)) py.dictSet(target, id, info);
      }
    }
  }

  publicState(): Array<[string, PyValue]> {
    return [...TRAVEL_FIELDS.state(this), ["long_context", this.longContext]];
  }

  private draw(low: number, high: number): string {
    return String(this.random.randint(low, high));
  }

  private tokenExpired(): boolean {
    return py.pyEquals(this.tokenExpiresIn, 0n);
  }

  private card(cardId: PyValue): PyDict {
    return py.asDict(py.getItem(this.creditCardList, cardId));
  }

  /** `get_flight_cost`; raises ValueError for unknown routes or classes. */
  private flightCost({ travel_from, travel_to, travel_date, travel_class }: Args): PyValue {
    const route = BASE_COSTS.find(
      ([from, to]) => py.pyEquals(from, travel_from!) && py.pyEquals(to, travel_to!),
    );
    if (!route) throw py.valueError("No available route for the given airports.");
    const factor = tableGet(CLASS_FACTOR, travel_class, undefined);
    if (factor === undefined)
      throw py.valueError("Invalid travel class. Options are: economy, business, first.");
    let digitSum = 0;
    for (const ch of py.iterate(travel_date!))
      if (typeof ch === "string" && /^[0-9]$/.test(ch)) digitSum += Number(ch);
    const multiplier = digitSum % 2 === 0 ? 2n : 1n;
    const cost = (base: number) => Number(BigInt(base) * factor * multiplier);
    const key = (from: string, to: string) =>
      `${from}|${to}|${py.pyStr(travel_class!)}|${py.pyStr(travel_date!)}`;
    let costs: number[];
    if (this.longContext) {
      this.flightCostLookup = new Map();
      costs = BASE_COSTS.map(([from, to, base]) => {
        this.flightCostLookup.set(key(from, to), py.pyDict({ cost: cost(base) }));
        return cost(base);
      });
    } else {
      costs = [cost(route[2])];
      this.flightCostLookup = new Map([
        [key(py.pyStr(travel_from!), py.pyStr(travel_to!)), py.pyDict({ cost: costs[0]! })],
      ]);
    }
    return py.pyDict({ travel_cost_list: costs });
  }

  private checkToken(accessToken: PyValue, flag?: string): PyDict | null {
    const fail = (error: string) =>
      flag ? py.pyDict({ [flag]: false, error }) : py.pyDict({ error });
    if (this.tokenExpired()) return fail("Token expired");
    if (!py.pyEquals(accessToken, this.accessToken)) return fail("Invalid access token");
    return null;
  }

  /** `body` behind upstream's token check, which answers first (under `flag` where given). */
  private tokenChecked(body: (a: Args) => PyValue, flag?: string): (a: Args) => PyValue {
    return (a) => this.checkToken(a.access_token!, flag) ?? body(a);
  }

  readonly methods = methodTable([
    [
      "authenticate_travel",
      [
        "client_id",
        "client_secret",
        "refresh_token",
        "grant_type",
        "user_first_name",
        "user_last_name",
      ].map(req),
      ({ grant_type, user_first_name, user_last_name }) => {
        this.tokenExpiresIn = 2n;
        this.accessToken = this.draw(100000, 999999);
        this.tokenType = "Bearer";
        this.tokenScope = grant_type!;
        this.userFirstName = user_first_name!;
        this.userLastName = user_last_name!;
        return py.pyDict({
          expires_in: 2n,
          access_token: this.accessToken,
          token_type: "Bearer",
          scope: grant_type!,
        });
      },
    ],
    [
      "travel_get_login_status",
      [],
      () => py.pyDict({ status: !(this.tokenExpiresIn === null || this.tokenExpired()) }),
    ],
    [
      "get_budget_fiscal_year",
      [opt("lastModifiedAfter", null), opt("includeRemoved", null)],
      () => py.pyDict({ budget_fiscal_year: "2018" }),
    ],
    [
      "register_credit_card",
      [
        "access_token",
        "card_number",
        "expiration_date",
        "cardholder_name",
        "card_verification_number",
      ].map(req),
      (a) => {
        if (this.tokenExpiresIn === null) return py.pyDict({ error: "Token not initialized" });
        const bad = this.checkToken(a.access_token!);
        if (bad) return bad;
        const cards = py.asDict(this.creditCardList);
        if (py.contains(cards, a.card_number!))
          return py.pyDict({ error: "Card already registered" });
        const cardId = this.draw(100000000000, 999999999999);
        const card = py.pyDict({
          card_number: a.card_number!,
          expiration_date: a.expiration_date!,
          cardholder_name: a.cardholder_name!,
          card_verification_number: a.card_verification_number!,
          balance: BigInt(this.random.randint(10000, 99999)),
        });
        py.dictSet(cards, cardId, card);
        return py.pyDict({ card_id: cardId });
      },
    ],
    [
      "get_flight_cost",
      ["travel_from", "travel_to", "travel_date", "travel_class"].map(req),
      (a) => this.flightCost(a),
    ],
    [
      "get_credit_card_balance",
      [req("access_token"), req("card_id")],
      this.tokenChecked(({ card_id }) => {
        if (!py.contains(this.creditCardList, card_id!)) {
          return py.pyDict({
            error: `Card not registered. Here are a list of card_id's: ${py.pyRepr([...py.asDict(this.creditCardList).keys()])}`,
          });
        }
        return py.pyDict({ card_balance: py.getItem(this.card(card_id!), "balance") });
      }),
    ],
    [
      "book_flight",
      ["access_token", "card_id", "travel_date", "travel_from", "travel_to", "travel_class"].map(
        req,
      ),
      this.tokenChecked((a) => this.bookFlight(a), "booking_status"),
    ],
    [
      "retrieve_invoice",
      [req("access_token"), opt("booking_id", null), opt("insurance_id", null)],
      this.tokenChecked(({ booking_id }) => {
        if (!py.contains(this.bookingRecord, booking_id!))
          return py.pyDict({ error: "Booking not found" });
        const record = py.getItem(this.bookingRecord, booking_id!);
        const invoice = py.pyDict({ booking_id: booking_id! });
        for (const field of [
          "travel_date",
          "travel_from",
          "travel_to",
          "travel_class",
          "travel_cost",
          "transaction_id",
        ]) {
          invoice.set(field, py.getItem(record, field));
        }
        return py.pyDict({ invoice });
      }),
    ],
    [
      "get_booking_history",
      [req("access_token")],
      this.tokenChecked(() => py.pyDict({ booking_history: py.deepCopy(this.bookingRecord) })),
    ],
    ["list_all_airports", [], () => [...ALL_AIRPORTS]],
    [
      "cancel_booking",
      [req("access_token"), req("booking_id")],
      this.tokenChecked(({ booking_id }) => {
        if (!py.contains(this.bookingRecord, booking_id!))
          return py.pyDict({ cancel_status: false, error: "Booking not found" });
        const record = py.getItem(this.bookingRecord, booking_id!);
        const card = this.card(py.getItem(record, "card_id"));
        card.set(
          "balance",
          py.pyAdd(py.getItem(card, "balance"), py.getItem(record, "travel_cost")),
        );
        py.dictDelete(py.asDict(this.bookingRecord), py.hashKey(booking_id!));
        return py.pyDict({ cancel_status: true });
      }, "cancel_status"),
    ],
    [
      "compute_exchange_rate",
      [req("base_currency"), req("target_currency"), req("value")],
      ({ base_currency, target_currency, value }) => {
        for (const [from, to, rate] of EXCHANGE_RATES) {
          if (py.pyEquals(base_currency!, from) && py.pyEquals(target_currency!, to)) {
            return py.pyDict({ exchanged_value: py.pyFloat(py.pyMul(value!, rate)) });
          }
          if (py.pyEquals(base_currency!, to) && py.pyEquals(target_currency!, from)) {
            return py.pyDict({ exchanged_value: py.roundFloat(py.pyTrueDiv(value!, rate), 2) });
          }
        }
        throw py.valueError("No available exchange rate for the given currencies.");
      },
    ],
    [
      "verify_traveler_information",
      ["first_name", "last_name", "date_of_birth", "passport_number"].map(req),
      (a) => this.verifyTraveler(a),
    ],
    [
      "set_budget_limit",
      [req("access_token"), req("budget_limit")],
      this.tokenChecked(({ budget_limit }) => {
        this.budgetLimit = py.pyFloat(budget_limit!);
        return py.pyDict({ budget_limit: this.budgetLimit });
      }),
    ],
    [
      "get_nearest_airport_by_city",
      [req("location")],
      ({ location }) =>
        py.pyDict({ nearest_airport: tableGet(AIRPORT_BY_CITY, py.hashKey(location!), "Unknown") }),
    ],
    [
      "purchase_insurance",
      ["access_token", "insurance_type", "booking_id", "insurance_cost", "card_id"].map(req),
      this.tokenChecked(({ booking_id, insurance_cost, card_id }) => {
        if (this.budgetLimit !== null && py.pyLt(this.budgetLimit, insurance_cost!)) {
          return py.pyDict({ insurance_status: false, error: "Exceeded budget limit" });
        }
        if (!py.contains(this.bookingRecord, booking_id!))
          return py.pyDict({ insurance_status: false, error: "Booking not found" });
        if (!py.contains(this.creditCardList, card_id!))
          return py.pyDict({ insurance_status: false, error: "Credit card not registered" });
        const card = this.card(card_id!);
        card.set("balance", py.pySub(py.getItem(card, "balance"), insurance_cost!));
        return py.pyDict({ insurance_id: this.draw(100000000, 999999999), insurance_status: true });
      }, "insurance_status"),
    ],
    [
      "contact_customer_support",
      [req("booking_id"), req("message")],
      ({ booking_id }) => {
        if (!py.contains(this.bookingRecord, booking_id!))
          return py.pyDict({ error: "Booking not found" });
        return py.pyDict({
          customer_support_message:
            "Thank you for contacting customer support. Your message has been received and we will get back to you shortly.",
        });
      },
    ],
    ["get_all_credit_cards", [], () => py.pyDict({ credit_card_list: this.creditCardList })],
  ]);

  private bookFlight(a: Args): PyValue {
    const fail = (error: string) => py.pyDict({ booking_status: false, error });
    if (!py.contains(this.creditCardList, a.card_id!)) return fail("Card not registered");
    const card = this.card(a.card_id!);
    if (!card.has("balance")) return fail("Balance not found");
    if (!ALL_AIRPORTS.some((code) => py.pyEquals(code, a.travel_from!)))
      return fail(`Invalid departure airport code: ${py.pyStr(a.travel_from!)}`);
    if (!ALL_AIRPORTS.some((code) => py.pyEquals(code, a.travel_to!)))
      return fail(`Invalid destination airport code: ${py.pyStr(a.travel_to!)}`);
    try {
      parseDateTime(a.travel_date!, "%Y-%m-%d");
    } catch (err) {
      if (err instanceof py.PyException && err.pyType === "ValueError")
        return fail("Invalid date format. Use YYYY-MM-DD.");
      throw err;
    }
    if (!(typeof a.travel_class === "string" && Object.hasOwn(CLASS_FACTOR, a.travel_class))) {
      py.hashKey(a.travel_class!);
      // Python prints the set {'economy', 'business', 'first'} in hash order, which varies per process.
      return fail("Invalid travel class. Must be one of {'economy', 'business', 'first'}");
    }
    let travelCost: PyValue;
    try {
      this.flightCost(a);
      const key = `${py.pyStr(a.travel_from!)}|${py.pyStr(a.travel_to!)}|${py.pyStr(a.travel_class)}|${py.pyStr(a.travel_date!)}`;
      const entry = this.flightCostLookup.get(key);
      if (entry === undefined) return fail("No available route for the given parameters");
      travelCost = py.getItem(entry, "cost");
    } catch (err) {
      if (err instanceof py.PyException && err.pyType === "ValueError") return fail(err.message);
      throw err;
    }
    if (py.pyLt(py.getItem(card, "balance"), travelCost)) return fail("Insufficient funds");
    if (this.budgetLimit !== null && py.pyLt(py.getItem(card, "balance"), this.budgetLimit))
      return fail("Balance is less than budget limit");
    card.set("balance", py.pySub(py.getItem(card, "balance"), travelCost));
    const bookingId = this.draw(1000000, 9999999);
    const transactionId = this.draw(10000000, 99999999);
    const record = py.pyDict({
      card_id: a.card_id!,
      travel_date: a.travel_date!,
      travel_from: a.travel_from!,
      travel_to: a.travel_to!,
      travel_class: a.travel_class,
      travel_cost: travelCost,
      transaction_id: transactionId,
    });
    py.dictSet(py.asDict(this.bookingRecord), bookingId, record);
    return py.pyDict({
      booking_id: bookingId,
      transaction_id: transactionId,
      booking_status: true,
      booking_history: this.longContext ? this.bookingRecord : new Map(),
    });
  }

  private verifyTraveler({ first_name, last_name, date_of_birth, passport_number }: Args): PyValue {
    const fail = (reason: string) =>
      py.pyDict({ verification_status: false, verification_failure: reason });
    if (
      !py.pyEquals(this.userFirstName, first_name!) ||
      !py.pyEquals(this.userLastName, last_name!)
    ) {
      return fail(
        "Cannot book flight information for another user." +
          `Expected ${py.pyStr(this.userFirstName)} ${py.pyStr(this.userLastName)}, got ${py.pyStr(first_name!)} ${py.pyStr(last_name!)}`,
      );
    }
    let birth: Date;
    try {
      birth = new Date(parseDateTime(date_of_birth!, "%Y-%m-%d"));
    } catch (err) {
      if (err instanceof py.PyException && err.pyType === "ValueError")
        return fail("Invalid date of birth format. Please use YYYY-MM-DD.");
      throw err;
    }
    const today = this.session.today();
    const beforeBirthday =
      today.getMonth() + 1 < birth.getUTCMonth() + 1 ||
      (today.getMonth() + 1 === birth.getUTCMonth() + 1 && today.getDate() < birth.getUTCDate());
    const age = today.getFullYear() - birth.getUTCFullYear() - (beforeBirthday ? 1 : 0);
    if (age < 18) return fail("Traveler must be at least 18 years old.");
    if (!py.asStr(passport_number!, "startswith").startsWith("US"))
      return fail("Passport must be issued by the United States.");
    return py.pyDict({ verification_status: true });
  }
}
