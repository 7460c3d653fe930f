/**
 * @module eval/acebench/api-travel
 * `Travel`: flight search (direct and one-stop), booking with baggage fees, modification and
 * cancellation, ported with upstream's quirks kept: a wrong password or unknown flight raises
 * instead of answering, cancelling refunds without removing the reservation, and helper methods
 * such as `update_balance` are public tools.
 */
import {
  contains,
  getItem,
  getOr,
  max2,
  pyAdd,
  pyDict,
  type PyDict,
  pyEquals,
  PyException,
  pyGt,
  type PyKey,
  pyLt,
  pyMul,
  pyNeg,
  pyStr,
  pySub,
  pyTypeName,
  type PyValue,
  setItem,
  truthy,
} from "../python/index.js";
import { AceApi, type ApiClassName, type Lang, type MethodDef, methodsOf } from "./api-base.js";
import { TRAVEL_TEXT, travelData } from "./travel-data.js";

/** The fixed "now" of `cancel_reservation`: 2024-07-14 06:00. */
const CANCEL_NOW_MS = Date.UTC(2024, 6, 14, 6, 0, 0);
const DAY_MS = 24 * 3600 * 1000;

/** `datetime.strptime(text, "%Y-%m-%d %H:%M:%S")` in milliseconds. */
function parseTime(text: PyValue): number {
  if (typeof text !== "string")
    throw new PyException(
      "TypeError",
      `strptime() argument 1 must be str, not ${pyTypeName(text)}`,
    );
  const m = /^(\d{4})-(\d{1,2})-(\d{1,2}) (\d{1,2}):(\d{1,2}):(\d{1,2})$/.exec(text);
  if (!m)
    throw new PyException(
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
    pyDict([
      [economy, e],
      [business, b],
    ]);
  return pyDict({ regular: row(1n, 2n), silver: row(2n, 3n), gold: row(3n, 3n) });
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
    const user = getOr(this.users, userId);
    if (truthy(user) && pyEquals(getItem(user, "password"), password)) return user;
    return pyDict({ status: "error", message: this.t().badLogin });
  }

  /** `allowance.get(level, {}).get(cabin, 0)`. */
  private allowance(level: PyValue, cabin: PyValue): PyValue {
    const row = getOr(allowanceTable(this.lang), level, new Map());
    return getOr(row as PyDict, cabin, 0n);
  }

  private baggageFee(level: PyValue, cabin: PyValue, count: PyValue): PyValue {
    const freeLimit = getItem(getItem(allowanceTable(this.lang), level), cabin);
    return pyMul(max2(pySub(count, freeLimit), 0n), 50n);
  }

  private updateBalance(user: PyValue, method: PyValue, amount: PyValue): boolean {
    for (const [name, key] of [
      ["cash", "cash_balance"],
      ["bank", "bank_balance"],
    ] as const) {
      if (!pyEquals(method, name)) continue;
      if (pyLt(pyAdd(getItem(user, key), amount), 0n)) return false;
      setItem(user, key, pyAdd(getItem(user, key), amount));
      return true;
    }
    return true;
  }

  private refund(user: PyValue, amount: PyValue): null {
    setItem(user, "cash_balance", pyAdd(getItem(user, "cash_balance"), amount));
    getItem(user, "user_name"); // upstream prints the name next, which raises KeyError without it
    return null;
  }

  private priceDifference(flight: PyValue, oldCabin: PyValue, newCabin: PyValue): PyValue {
    const { economy, business } = this.t();
    const prices = pyDict([
      [economy, getItem(flight, "economy_price")],
      [business, getItem(flight, "business_price")],
    ]);
    return pySub(getOr(prices, newCabin, 0n), getOr(prices, oldCabin, 0n));
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
    if (!truthy(user)) return t.authFailed;
    const flight =
      this.flights.find(
        (f) =>
          pyEquals(getItem(f, "flight_no"), flightNo) &&
          pyEquals(getItem(f, "status"), "available"),
      ) ?? null;
    let total = getItem(flight, pyEquals(cabin, t.economy) ? "economy_price" : "business_price");
    total = pyAdd(total, this.baggageFee(getItem(user, "membership_level"), cabin, baggage));
    if (!contains(["cash", "bank"], method)) return t.badPayment;
    const key = pyEquals(method, "cash") ? "cash_balance" : "bank_balance";
    const account = getOr(this.users, userId);
    if (pyGt(total, getItem(account, key))) return key === "cash_balance" ? t.poorCash : t.poorBank;
    setItem(account, key, pySub(getItem(account, key), total));
    setItem(flight, "seats_available", pySub(getItem(flight, "seats_available"), 1n));
    const id = `res_${this.reservations.length + 1}`;
    this.reservations.push(
      pyDict({
        reservation_id: id,
        user_id: userId,
        flight_no: flightNo,
        payment_method: method,
        cabin,
        baggage,
      }),
    );
    return t.booked(id, pyStr(total));
  }

  /** The first flight whose `flight_no` is `flightNo`. */
  private flightNumbered(flightNo: PyValue): PyDict | undefined {
    return this.flights.find((f) => pyEquals(getItem(f, "flight_no"), flightNo));
  }

  /** The first reservation with this id made by this user. */
  private userReservation(userId: PyValue, reservationId: PyValue): PyDict | undefined {
    return this.reservations.find(
      (r) =>
        pyEquals(getItem(r, "reservation_id"), reservationId) &&
        pyEquals(getItem(r, "user_id"), userId),
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
    const current = this.flightNumbered(getItem(reservation, "flight_no"));
    if (!current) return t.noFlightInfo;
    const method = truthy(newMethod) ? newMethod : getItem(reservation, "payment_method");
    const user = getItem(this.users, userId);
    if (!truthy(user)) return t.noUserInfo;
    const messages: string[] = [];
    if (truthy(newFlightNo) && !pyEquals(newFlightNo, getItem(reservation, "flight_no"))) {
      const next = this.flightNumbered(newFlightNo);
      const sameRoute =
        next &&
        pyEquals(getItem(next, "origin"), getItem(current, "origin")) &&
        pyEquals(getItem(next, "destination"), getItem(current, "destination"));
      if (!sameRoute) return t.changeFailed;
      setItem(reservation, "flight_no", newFlightNo);
      messages.push(t.flightChanged);
    }
    if (truthy(newCabin) && !pyEquals(newCabin, getOr(reservation, "cabin"))) {
      const difference = this.priceDifference(current, getItem(reservation, "cabin"), newCabin);
      setItem(reservation, "cabin", newCabin);
      if (pyGt(difference, 0n)) {
        messages.push(
          this.updateBalance(user, method, pyNeg(difference))
            ? t.cabinPaid(pyStr(difference))
            : t.cabinPoor,
        );
      } else if (pyLt(difference, 0n)) {
        this.updateBalance(user, method, pyNeg(difference));
        messages.push(t.cabinRefund(pyStr(pyNeg(difference))));
      }
    }
    if (pyGt(addBaggage, 0n)) {
      const allowance = this.allowance(
        getItem(user, "membership_level"),
        getItem(reservation, "cabin"),
      );
      const total = pyAdd(getOr(reservation, "baggage", 0n), addBaggage);
      const cost = pyMul(max2(0n, pySub(total, allowance)), 50n);
      if (pyGt(cost, 0n))
        messages.push(
          this.updateBalance(user, method, pyNeg(cost))
            ? t.baggagePaid(pyStr(cost))
            : t.baggagePoor,
        );
      setItem(reservation, "baggage", total);
    }
    if (messages.length === 0) messages.push(t.noFees);
    return messages.join(" ");
  }

  private cancel(userId: PyValue, reservationId: PyValue, reason: PyValue): PyValue {
    const t = this.t();
    const user = getOr(this.users, userId);
    if (!truthy(user)) return t.badUser;
    const reservation = this.userReservation(userId, reservationId);
    if (!reservation) return t.badReservation;
    const flight = this.flightNumbered(getItem(reservation, "flight_no"));
    if (!flight) return t.badFlight;
    const depart = parseTime(getItem(flight, "depart_time"));
    if (CANCEL_NOW_MS > depart) return t.used;
    const price = getItem(
      flight,
      pyEquals(getItem(reservation, "cabin"), t.economy) ? "economy_price" : "business_price",
    );
    if (pyEquals(reason, t.airlineCancelled)) {
      this.refund(user, price);
      return t.cancelledByAirline(pyStr(price));
    }
    if (depart - CANCEL_NOW_MS > DAY_MS) {
      this.refund(user, price);
      return t.freeCancel(pyStr(price));
    }
    const fee = pyMul(price, 0.1);
    const refund = pySub(price, fee);
    this.refund(user, refund);
    return t.feeCancel(pyStr(fee), pyStr(refund));
  }

  private transfers(origin: PyValue, via: PyValue, destination: PyValue): PyValue {
    const leg = (from: PyValue, to: PyValue) =>
      this.flights.filter(
        (f) =>
          pyEquals(getItem(f, "origin"), from) &&
          pyEquals(getItem(f, "destination"), to) &&
          pyEquals(getItem(f, "status"), "available"),
      );
    const pairs: PyValue[] = [];
    for (const first of leg(origin, via)) {
      const arrival = parseTime(getItem(first, "arrival_time"));
      for (const second of leg(via, destination)) {
        if (arrival < parseTime(getItem(second, "depart_time")))
          pairs.push(pyDict({ first_leg: first, second_leg: second }));
      }
    }
    return pairs.length > 0 ? pairs : this.t().noTransfer;
  }

  private flightDetails(origin: PyValue, destination: PyValue): PyValue {
    let flights = this.flights;
    if (truthy(origin)) flights = flights.filter((f) => pyEquals(getItem(f, "origin"), origin));
    if (truthy(destination))
      flights = flights.filter((f) => pyEquals(getItem(f, "destination"), destination));
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
    return flights.map((f) => new Map<PyKey, PyValue>(keys.map((k) => [k, getItem(f, k)])));
  }

  private reservationDetails(reservationId: PyValue, userId: PyValue): PyValue {
    let found: PyDict[];
    if (truthy(reservationId))
      found = this.reservations.filter((r) =>
        pyEquals(getItem(r, "reservation_id"), reservationId),
      );
    else if (truthy(userId))
      found = this.reservations.filter((r) => pyEquals(getItem(r, "user_id"), userId));
    else return pyDict({ status: "error", message: this.t().needId });
    return found.map((r) => {
      const flight = this.flightNumbered(getItem(r, "flight_no")) ?? null;
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
        const user = getOr(this.users, id);
        if (truthy(user) && pyEquals(getItem(user, "password"), password))
          return new Map([...(user as PyDict)].filter(([k]) => !pyEquals(k, "password")));
        return pyDict({ status: "error", message: this.t().badLogin });
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
        (...a) =>
          this.reserve(
            a[0] as PyValue,
            a[1] as PyValue,
            a[2] as PyValue,
            a[3] as PyValue,
            a[4] as PyValue,
            a[5] as PyValue,
          ),
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
        (...a) =>
          this.modify(
            a[0] as PyValue,
            a[1] as PyValue,
            a[2] as PyValue,
            a[3] as PyValue,
            a[4] as PyValue,
            a[5] as PyValue,
          ),
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
