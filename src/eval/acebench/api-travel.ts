/**
 * @module eval/acebench/api-travel
 * `Travel`: flight search (direct and one-stop), booking with baggage fees, modification and
 * cancellation, ported with upstream's quirks kept: a wrong password or unknown flight raises
 * instead of answering, cancelling refunds without removing the reservation, and helper methods
 * such as `update_balance` are public tools.
 */
import * as py from "../python/index.js";
import type { PyDict, PyKey, PyValue } from "../python/index.js";
import { AceApi, type ApiClassName, type Lang, type MethodDef, methodsOf } from "./api-base.js";
import { TRAVEL_TEXT, travelData } from "./travel-data.js";

/** The fixed "now" of `cancel_reservation`: 2024-07-14 06:00. */
const CANCEL_NOW_MS = Date.UTC(2024, 6, 14, 6, 0, 0);
const DAY_MS = 24 * 3600 * 1000;

/** `datetime.strptime(text, "%Y-%m-%d %H:%M:%S")` in milliseconds. */
function parseTime(text: PyValue): number {
  if (typeof text !== "string")
    throw new py.PyException(
      "TypeError",
      `strptime() argument 1 must be str, not ${py.pyTypeName(text)}`,
    );
  const m = /^(\d{4})-(\d{1,2})-(\d{1,2}) (\d{1,2}):(\d{1,2}):(\d{1,2})$/.exec(text);
  if (!m)
    throw new py.PyException(
      "ValueError",
      `time data ${JSON.stringify(text)} does not match format '%Y-%m-%d %H:%M:%S'`,
    );
  return Date.UTC(
    Number(m[1]),
    Number(m[2]) - 1,
    Number(m[3]),
    Number(m[4]),
    Number(m[5]),
    Number(m[6]),
  );
}

/** Free checked bags by membership level and cabin. */
function allowanceTable(lang: Lang): PyDict {
  const { economy, business } = TRAVEL_TEXT[lang];
  const row = (e: bigint, b: bigint) =>
    py.pyDict([
      [economy, e],
      [business, b],
    ]);
  return py.pyDict({ regular: row(1n, 2n), silver: row(2n, 3n), gold: row(3n, 3n) });
}

/** An airline booking system. */
export class Travel extends AceApi {
  readonly className: ApiClassName = "Travel";
  /** Users by id: user_name, password, cash_balance, bank_balance, membership_level. */
  users: PyDict;
  /** Flights (flight numbers are not unique). */
  flights: PyDict[];
  /** Reservations; ids are `res_<count+1>`. */
  reservations: PyDict[];

  constructor(lang: Lang) {
    super(lang);
    const data = travelData(lang);
    this.users = data.users;
    this.flights = data.flights;
    this.reservations = data.reservations;
  }

  override loadScenario(): void {
    // Upstream's Travel._load_scenario does nothing.
  }

  override attributes(): Array<[string, PyValue]> {
    return [
      ["users", this.users],
      ["flights", this.flights],
      ["reservations", this.reservations],
    ];
  }

  private t() {
    return TRAVEL_TEXT[this.lang];
  }

  private authenticate(userId: PyValue, password: PyValue): PyValue {
    const user = py.getOr(this.users, userId);
    if (py.truthy(user) && py.pyEquals(py.getItem(user, "password"), password)) return user;
    return py.pyDict({ status: "error", message: this.t().badLogin });
  }

  /** `allowance.get(level, {}).get(cabin, 0)`. */
  private allowance(level: PyValue, cabin: PyValue): PyValue {
    const row = py.getOr(allowanceTable(this.lang), level, new Map());
    return py.getOr(row as PyDict, cabin, 0n);
  }

  private baggageFee(level: PyValue, cabin: PyValue, count: PyValue): PyValue {
    const freeLimit = py.getItem(py.getItem(allowanceTable(this.lang), level), cabin);
    return py.pyMul(py.max2(py.pySub(count, freeLimit), 0n), 50n);
  }

  private updateBalance(user: PyValue, method: PyValue, amount: PyValue): boolean {
    for (const [name, key] of [
      ["cash", "cash_balance"],
      ["bank", "bank_balance"],
    ] as const) {
      if (!py.pyEquals(method, name)) continue;
      if (py.pyLt(py.pyAdd(py.getItem(user, key), amount), 0n)) return false;
      py.setItem(user, key, py.pyAdd(py.getItem(user, key), amount));
      return true;
    }
    return true;
  }

  private refund(user: PyValue, amount: PyValue): null {
    py.setItem(user, "cash_balance", py.pyAdd(py.getItem(user, "cash_balance"), amount));
    py.getItem(user, "user_name"); // upstream prints the name next, which raises KeyError without it
    return null;
  }

  private priceDifference(flight: PyValue, oldCabin: PyValue, newCabin: PyValue): PyValue {
    const { economy, business } = this.t();
    const prices = py.pyDict([
      [economy, py.getItem(flight, "economy_price")],
      [business, py.getItem(flight, "business_price")],
    ]);
    return py.pySub(py.getOr(prices, newCabin, 0n), py.getOr(prices, oldCabin, 0n));
  }

  private reserve(
    userId: PyValue,
    password: PyValue,
    flightNo: PyValue,
    cabin: PyValue,
    method: PyValue,
    baggage: PyValue,
  ): PyValue {
    const t = this.t();
    const user = this.authenticate(userId, password);
    if (!py.truthy(user)) return t.authFailed;
    const flight =
      this.flights.find(
        (f) =>
          py.pyEquals(py.getItem(f, "flight_no"), flightNo) &&
          py.pyEquals(py.getItem(f, "status"), "available"),
      ) ?? null;
    let total = py.getItem(
      flight,
      py.pyEquals(cabin, t.economy) ? "economy_price" : "business_price",
    );
    total = py.pyAdd(total, this.baggageFee(py.getItem(user, "membership_level"), cabin, baggage));
    if (!py.contains(["cash", "bank"], method)) return t.badPayment;
    const key = py.pyEquals(method, "cash") ? "cash_balance" : "bank_balance";
    const account = py.getOr(this.users, userId);
    if (py.pyGt(total, py.getItem(account, key)))
      return key === "cash_balance" ? t.poorCash : t.poorBank;
    py.setItem(account, key, py.pySub(py.getItem(account, key), total));
    py.setItem(flight, "seats_available", py.pySub(py.getItem(flight, "seats_available"), 1n));
    const id = `res_${this.reservations.length + 1}`;
    this.reservations.push(
      py.pyDict({
        reservation_id: id,
        user_id: userId,
        flight_no: flightNo,
        payment_method: method,
        cabin,
        baggage,
      }),
    );
    return t.booked(id, py.pyStr(total));
  }

  /** The first flight whose `flight_no` is `flightNo`. */
  private flightNumbered(flightNo: PyValue): PyDict | undefined {
    return this.flights.find((f) => py.pyEquals(py.getItem(f, "flight_no"), flightNo));
  }

  /** The first reservation with this id made by this user. */
  private userReservation(userId: PyValue, reservationId: PyValue): PyDict | undefined {
    return this.reservations.find(
      (r) =>
        py.pyEquals(py.getItem(r, "reservation_id"), reservationId) &&
        py.pyEquals(py.getItem(r, "user_id"), userId),
    );
  }

  private modify(
    userId: PyValue,
    reservationId: PyValue,
    newFlightNo: PyValue,
    newCabin: PyValue,
    addBaggage: PyValue,
    newMethod: PyValue,
  ): PyValue {
    const t = this.t();
    const reservation = this.userReservation(userId, reservationId);
    if (!reservation) return t.noReservation;
    const current = this.flightNumbered(py.getItem(reservation, "flight_no"));
    if (!current) return t.noFlightInfo;
    const method = py.truthy(newMethod) ? newMethod : py.getItem(reservation, "payment_method");
    const user = py.getItem(this.users, userId);
    if (!py.truthy(user)) return t.noUserInfo;
    const messages: string[] = [];
    if (py.truthy(newFlightNo) && !py.pyEquals(newFlightNo, py.getItem(reservation, "flight_no"))) {
      const next = this.flightNumbered(newFlightNo);
      const sameRoute =
        next &&
        py.pyEquals(py.getItem(next, "origin"), py.getItem(current, "origin")) &&
        py.pyEquals(py.getItem(next, "destination"), py.getItem(current, "destination"));
      if (!sameRoute) return t.changeFailed;
      py.setItem(reservation, "flight_no", newFlightNo);
      messages.push(t.flightChanged);
    }
    if (py.truthy(newCabin) && !py.pyEquals(newCabin, py.getOr(reservation, "cabin"))) {
      const difference = this.priceDifference(current, py.getItem(reservation, "cabin"), newCabin);
      py.setItem(reservation, "cabin", newCabin);
      if (py.pyGt(difference, 0n)) {
        messages.push(
          this.updateBalance(user, method, py.pyNeg(difference))
            ? t.cabinPaid(py.pyStr(difference))
            : t.cabinPoor,
        );
      } else if (py.pyLt(difference, 0n)) {
        this.updateBalance(user, method, py.pyNeg(difference));
        messages.push(t.cabinRefund(py.pyStr(py.pyNeg(difference))));
      }
    }
    if (py.pyGt(addBaggage, 0n)) {
      const allowance = this.allowance(
        py.getItem(user, "membership_level"),
        py.getItem(reservation, "cabin"),
      );
      const total = py.pyAdd(py.getOr(reservation, "baggage", 0n), addBaggage);
      const cost = py.pyMul(py.max2(0n, py.pySub(total, allowance)), 50n);
      if (py.pyGt(cost, 0n))
        messages.push(
          this.updateBalance(user, method, py.pyNeg(cost))
            ? t.baggagePaid(py.pyStr(cost))
            : t.baggagePoor,
        );
      py.setItem(reservation, "baggage", total);
    }
    if (messages.length === 0) messages.push(t.noFees);
    return messages.join(" ");
  }

  private cancel(userId: PyValue, reservationId: PyValue, reason: PyValue): PyValue {
    const t = this.t();
    const user = py.getOr(this.users, userId);
    if (!py.truthy(user)) return t.badUser;
    const reservation = this.userReservation(userId, reservationId);
    if (!reservation) return t.badReservation;
    const flight = this.flightNumbered(py.getItem(reservation, "flight_no"));
    if (!flight) return t.badFlight;
    const depart = parseTime(py.getItem(flight, "depart_time"));
    if (CANCEL_NOW_MS > depart) return t.used;
    const price = py.getItem(
      flight,
      py.pyEquals(py.getItem(reservation, "cabin"), t.economy) ? "economy_price" : "business_price",
    );
    if (py.pyEquals(reason, t.airlineCancelled)) {
      this.refund(user, price);
      return t.cancelledByAirline(py.pyStr(price));
    }
    if (depart - CANCEL_NOW_MS > DAY_MS) {
      this.refund(user, price);
      return t.freeCancel(py.pyStr(price));
    }
    const fee = py.pyMul(price, 0.1);
    const refund = py.pySub(price, fee);
    this.refund(user, refund);
    return t.feeCancel(py.pyStr(fee), py.pyStr(refund));
  }

  private transfers(origin: PyValue, via: PyValue, destination: PyValue): PyValue {
    const leg = (from: PyValue, to: PyValue) =>
      this.flights.filter(
        (f) =>
          py.pyEquals(py.getItem(f, "origin"), from) &&
          py.pyEquals(py.getItem(f, "destination"), to) &&
          py.pyEquals(py.getItem(f, "status"), "available"),
      );
    const pairs: PyValue[] = [];
    for (const first of leg(origin, via)) {
      const arrival = parseTime(py.getItem(first, "arrival_time"));
      for (const second of leg(via, destination)) {
        if (arrival < parseTime(py.getItem(second, "depart_time")))
          pairs.push(py.pyDict({ first_leg: first, second_leg: second }));
      }
    }
    return pairs.length > 0 ? pairs : this.t().noTransfer;
  }

  private flightDetails(origin: PyValue, destination: PyValue): PyValue {
    let flights = this.flights;
    if (py.truthy(origin))
      flights = flights.filter((f) => py.pyEquals(py.getItem(f, "origin"), origin));
    if (py.truthy(destination))
      flights = flights.filter((f) => py.pyEquals(py.getItem(f, "destination"), destination));
    if (flights.length === 0) return this.t().noDirect;
    const keys = [
      "flight_no",
      "origin",
      "destination",
      "depart_time",
      "arrival_time",
      "status",
      "seats_available",
      "economy_price",
      "business_price",
    ];
    return flights.map((f) => new Map<PyKey, PyValue>(keys.map((k) => [k, py.getItem(f, k)])));
  }

  private reservationDetails(reservationId: PyValue, userId: PyValue): PyValue {
    let found: PyDict[];
    if (py.truthy(reservationId))
      found = this.reservations.filter((r) =>
        py.pyEquals(py.getItem(r, "reservation_id"), reservationId),
      );
    else if (py.truthy(userId))
      found = this.reservations.filter((r) => py.pyEquals(py.getItem(r, "user_id"), userId));
    else return py.pyDict({ status: "error", message: this.t().needId });
    return found.map((r) => {
      const flight = this.flightNumbered(py.getItem(r, "flight_no")) ?? null;
      const out: PyDict = new Map(r);
      out.set("flight_info", flight);
      return out;
    });
  }

  override methods(): Record<string, MethodDef> {
    const m = methodsOf("Travel");
    return {
      get_flight_details: m(
        [
          ["origin", null],
          ["destination", null],
        ],
        (o, d) => this.flightDetails(o, d),
      ),
      get_user_details: m(["user_id", "password"], (id, password) => {
        const user = py.getOr(this.users, id);
        if (py.truthy(user) && py.pyEquals(py.getItem(user, "password"), password))
          return new Map([...(user as PyDict)].filter(([k]) => !py.pyEquals(k, "password")));
        return py.pyDict({ status: "error", message: this.t().badLogin });
      }),
      get_reservation_details: m(
        [
          ["reservation_id", null],
          ["user_id", null],
        ],
        (r, u) => this.reservationDetails(r, u),
      ),
      authenticate_user: m(["user_id", "password"], (id, password) =>
        this.authenticate(id, password),
      ),
      get_baggage_allowance: m(["membership_level", "cabin_class"], (level, cabin) =>
        this.allowance(level, cabin),
      ),
      find_transfer_flights: m(["origin_city", "transfer_city", "destination_city"], (o, v, d) =>
        this.transfers(o, v, d),
      ),
      calculate_baggage_fee: m(
        ["membership_level", "cabin_class", "baggage_count"],
        (level, cabin, n) => this.baggageFee(level, cabin, n),
      ),
      update_balance: m(["user", "payment_method", "amount"], (user, method, amount) =>
        this.updateBalance(user, method, amount),
      ),
      reserve_flight: m(
        ["user_id", "password", "flight_no", "cabin", "payment_method", "baggage_count"],
        (u, pw, f, c, pm, n) => this.reserve(u, pw, f, c, pm, n),
      ),
      modify_flight: m(
        [
          "user_id",
          "reservation_id",
          ["new_flight_no", null],
          ["new_cabin", null],
          ["add_baggage", 0],
          ["new_payment_method", null],
        ],
        (u, r, f, c, n, pm) => this.modify(u, r, f, c, n, pm),
      ),
      cancel_reservation: m(["user_id", "reservation_id", "reason"], (u, r, why) =>
        this.cancel(u, r, why),
      ),
      process_refund: m(["user", "amount"], (user, amount) => this.refund(user, amount)),
      calculate_price_difference: m(["flight", "old_cabin", "new_cabin"], (f, o, n) =>
        this.priceDifference(f, o, n),
      ),
    };
  }
}
