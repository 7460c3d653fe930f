/**
 * @module eval/bfcl/classes/trading-bot
 * Port of upstream's `TradingBot` (trading_bot.py): orders, account, watch list, stocks and a
 * transaction history whose timestamps come from `random.Random(1053520)`.
 */
import {
  append,
  asDict,
  contains,
  dictGet,
  dictSet,
  formatFixed,
  formatNamed,
  getItem,
  getOrMake,
  hashKey,
  iterate,
  lower,
  pyAbs,
  pyAdd,
  pyDict,
  type PyDict,
  pyEquals,
  pyFloat,
  pyGe,
  pyGt,
  pyInt,
  pyLe,
  pyMul,
  PyRandom,
  pyRepr,
  pyStr,
  pySub,
  type PyValue,
  removeFirst,
  truthy,
} from "../../python/index.js";
import { type BfclApi, methodTable, opt, req, stateFields, tableGet } from "../api.js";
import type { BfclSession } from "../session.js";
import { defaultOrders, defaultStocks } from "./trading-defaults.js";
import { parseDateTime } from "./datetime.js";

/** `CURRENT_TIME = datetime(2024, 9, 1, 10, 30)`, as UTC milliseconds of the naive time. */
const CURRENT_TIME_MS = Date.UTC(2024, 8, 1, 10, 30);
const SECONDS_PER_DAY = 86400;

const SYMBOLS: Record<string, string> = {
  Apple: "AAPL",
  Google: "GOOG",
  Tesla: "TSLA",
  Microsoft: "MSFT",
  Nvidia: "NVDA",
  "Zeta Corp": "ZETA",
  "Alpha Tech": "ALPH",
  "Omega Industries": "OMEG",
  "Quasar Ltd.": "QUAS",
  "Neptune Systems": "NEPT",
  "Synex Solutions": "SYNX",
  Amazon: "AMZN",
  Gorilla: "GORI",
};

function two(n: number): string {
  return String(n).padStart(2, "0");
}

/** TradingBot's public attributes after `orders` (its int keys restored), in `vars()` order. */
const TRADING_FIELDS = stateFields<TradingBot>([
  [
    "account_info",
    "accountInfo",
    () => pyDict({ account_id: 12345n, balance: 10000.0, binding_card: 1974202140965533n }),
  ],
  ["authenticated", "authenticated", () => false],
  ["market_status", "marketStatus", () => "Closed"],
  ["order_counter", "orderCounter", () => 12446n],
  ["stocks", "stocks", defaultStocks],
  ["watch_list", "watchList", () => ["NVDA"]],
  ["transaction_history", "transactionHistory", () => []],
]);

/** Port of upstream's TradingBot. */
export class TradingBot implements BfclApi {
  readonly className = "TradingBot";
  orders: PyDict = new Map();
  accountInfo: PyValue = new Map();
  authenticated: PyValue = false;
  marketStatus: PyValue = "Closed";
  orderCounter: PyValue = 12446n;
  stocks: PyValue = new Map();
  watchList: PyValue = ["NVDA"];
  transactionHistory: PyValue = [];
  longContext = false;
  private random = new PyRandom(1053520);

  constructor(private readonly session: BfclSession) {}

  loadScenario(scenario: PyDict, longContext: boolean): void {
    const orders = asDict(getOrMake(scenario, "orders", defaultOrders));
    this.orders = new Map(
      [...orders].map(([k, v]) => [typeof k === "string" && /^[0-9]+$/.test(k) ? BigInt(k) : k, v]),
    );
    TRADING_FIELDS.load(this, scenario);
    this.longContext = longContext;
    const seed = getOrMake(scenario, "random_seed", () => 1053520n);
    this.random = new PyRandom(typeof seed === "bigint" ? seed : 1053520n);
  }

  publicState(): Array<[string, PyValue]> {
    return [
      ["orders", this.orders],
      ...TRADING_FIELDS.state(this),
      ["long_context", this.longContext],
    ];
  }

  /** A time in the day after CURRENT_TIME: `randint` over the POSIX seconds of that day. */
  private transactionTimestamp(): string {
    const offset = this.random.randint(0, SECONDS_PER_DAY);
    const d = new Date(CURRENT_TIME_MS + offset * 1000);
    return (
      `${d.getUTCFullYear()}-${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())} ` +
      `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}`
    );
  }

  private denied(what: string): PyDict | null {
    return truthy(this.authenticated)
      ? null
      : pyDict({ error: `User not authenticated. Please log in to ${what}.` });
  }

  private balanceChange(kind: "withdrawal" | "deposit", amount: PyValue, sign: 1 | -1): void {
    const account = asDict(this.accountInfo);
    const balance = getItem(account, "balance");
    account.set("balance", sign === 1 ? pyAdd(balance, amount) : pySub(balance, amount));
    append(
      this.transactionHistory,
      pyDict({ type: kind, amount, timestamp: this.transactionTimestamp() }),
    );
  }

  readonly methods = methodTable([
    ["get_current_time", [], () => pyDict({ current_time: "10:30 AM" })],
    [
      "get_symbol_by_name",
      [req("name")],
      ({ name }) => pyDict({ symbol: tableGet(SYMBOLS, hashKey(name!), "Stock not found") }),
    ],
    [
      "get_stock_info",
      [req("symbol")],
      ({ symbol }) => {
        const stocks = asDict(this.stocks);
        if (!contains(stocks, symbol!))
          return pyDict({ error: `Stock with symbol '${pyStr(symbol!)}' not found.` });
        const stock = asDict(getItem(stocks, symbol!));
        if (!this.longContext) return stock;
        const copy = new Map(stock);
        copy.set("MA(5)", this.session.longContextValue("MA_5_EXTENSION"));
        copy.set("MA(20)", this.session.longContextValue("MA_20_EXTENSION"));
        return copy;
      },
    ],
    [
      "get_order_details",
      [req("order_id")],
      ({ order_id }) => {
        if (!contains(this.orders, order_id!)) {
          return pyDict({
            error: `Order with ID ${pyStr(order_id!)} not found.Here is the list of orders_id: ${pyRepr([...this.orders.keys()])}`,
          });
        }
        const order = asDict(getItem(this.orders, order_id!));
        if (!this.longContext) return order;
        const copy = new Map(order);
        const symbol = getItem(order, "symbol");
        const metadata: PyDict = new Map();
        for (const [key, template] of asDict(
          this.session.longContextValue("ORDER_DETAIL_EXTENSION"),
        )) {
          metadata.set(key, formatNamed(template as string, { symbol }));
        }
        copy.set("metadata", metadata);
        return copy;
      },
    ],
    [
      "cancel_order",
      [req("order_id")],
      ({ order_id }) => {
        if (!contains(this.orders, order_id!))
          return pyDict({ error: `Order with ID ${pyStr(order_id!)} not found.` });
        const order = asDict(getItem(this.orders, order_id!));
        if (pyEquals(getItem(order, "status"), "Completed")) {
          return pyDict({
            error: `Can't cancel order ${pyStr(order_id!)}. Order is already completed.`,
          });
        }
        order.set("status", "Cancelled");
        return pyDict({ order_id: order_id!, status: "Cancelled" });
      },
    ],
    [
      "place_order",
      [req("order_type"), req("symbol"), req("price"), req("amount")],
      ({ order_type, symbol, price, amount }) => {
        const denied = this.denied("place an order");
        if (denied) return denied;
        if (!contains(asDict(this.stocks), symbol!))
          return pyDict({ error: `Invalid stock symbol: ${pyStr(symbol!)}` });
        if (pyLe(price!, 0n) || pyLe(amount!, 0n))
          return pyDict({ error: "Price and amount must be positive values." });
        if (lower(order_type!) === "buy") {
          const totalCost = pyMul(pyFloat(price!), pyInt(amount!)) as number;
          const balance = dictGet(asDict(this.accountInfo), "balance") ?? 0n;
          if (pyGt(totalCost, balance)) {
            return pyDict({
              error: `Insufficient funds: required $${formatFixed(totalCost, 2)} but only $${formatFixed(pyFloat(balance), 2)} available.`,
            });
          }
        }
        const floatPrice = pyFloat(price!);
        const orderId = this.orderCounter;
        dictSet(
          this.orders,
          hashKey(orderId),
          pyDict({
            id: orderId,
            order_type: order_type!,
            symbol: symbol!,
            price: floatPrice,
            amount: amount!,
            status: "Open",
          }),
        );
        this.orderCounter = pyAdd(this.orderCounter, 1n);
        return pyDict({
          order_id: orderId,
          order_type: order_type!,
          status: "Pending",
          price: floatPrice,
          amount: amount!,
        });
      },
    ],
    [
      "withdraw_funds",
      [req("amount")],
      ({ amount }) => {
        const denied = this.denied("make a transaction");
        if (denied) return denied;
        if (!pyEquals(this.marketStatus, "Open"))
          return pyDict({ error: "Market is closed. Transactions are not allowed." });
        if (pyLe(amount!, 0n)) return pyDict({ error: "Transaction amount must be positive." });
        if (pyGt(amount!, getItem(this.accountInfo, "balance")))
          return pyDict({ error: "Insufficient funds for withdrawal." });
        this.balanceChange("withdrawal", amount!, -1);
        return pyDict({
          status: "Withdrawal successful",
          new_balance: getItem(this.accountInfo, "balance"),
        });
      },
    ],
    ["get_account_info", [], () => this.denied("view account information") ?? this.accountInfo],
    [
      "trading_login",
      [req("username"), req("password")],
      () => {
        if (truthy(this.authenticated)) return pyDict({ status: "Already logged in" });
        this.authenticated = true;
        return pyDict({ status: "Logged in successfully" });
      },
    ],
    ["trading_get_login_status", [], () => pyDict({ status: truthy(this.authenticated) })],
    [
      "trading_logout",
      [],
      () => {
        if (!truthy(this.authenticated))
          return pyDict({ status: "No user is currently logged in" });
        this.authenticated = false;
        return pyDict({ status: "Logged out successfully" });
      },
    ],
    [
      "fund_account",
      [req("amount")],
      ({ amount }) => {
        const denied = this.denied("fund the account");
        if (denied) return denied;
        if (pyLe(amount!, 0n)) return pyDict({ error: "Funding amount must be positive." });
        this.balanceChange("deposit", amount!, 1);
        return pyDict({
          status: "Account funded successfully",
          new_balance: getItem(this.accountInfo, "balance"),
        });
      },
    ],
    [
      "remove_stock_from_watchlist",
      [req("symbol")],
      ({ symbol }) => {
        const denied = this.denied("modify the watchlist");
        if (denied) return denied;
        if (!contains(this.watchList, symbol!))
          return pyDict({ error: `Stock ${pyStr(symbol!)} not found in watchlist.` });
        removeFirst(this.watchList, symbol!);
        return pyDict({ status: `Stock ${pyStr(symbol!)} removed from watchlist successfully.` });
      },
    ],
    [
      "get_watchlist",
      [],
      () => {
        if (!truthy(this.authenticated))
          return ["Error: User not authenticated. Please log in to view the watchlist."];
        if (this.longContext)
          return [
            ...iterate(this.watchList),
            ...iterate(this.session.longContextValue("WATCH_LIST_EXTENSION")),
          ];
        return pyDict({ watchlist: this.watchList });
      },
    ],
    [
      "get_order_history",
      [],
      () => {
        if (!truthy(this.authenticated))
          return [
            pyDict({ error: "User not authenticated. Please log in to view order history." }),
          ];
        return pyDict({ history: [...this.orders.keys()] });
      },
    ],
    [
      "get_transaction_history",
      [opt("start_date", null), opt("end_date", null)],
      ({ start_date, end_date }) => {
        if (!truthy(this.authenticated)) {
          return [
            pyDict({ error: "User not authenticated. Please log in to view transaction history." }),
          ];
        }
        const start = truthy(start_date!) ? parseDateTime(start_date!, "%Y-%m-%d") : -Infinity;
        const end = truthy(end_date!) ? parseDateTime(end_date!, "%Y-%m-%d") : Infinity;
        const filtered = iterate(this.transactionHistory).filter((t) => {
          const at = parseDateTime(getItem(t, "timestamp"), "%Y-%m-%d %H:%M:%S");
          return start <= at && at <= end;
        });
        if (this.longContext)
          filtered.push(...iterate(this.session.longContextValue("TRANSACTION_HISTORY_EXTENSION")));
        return pyDict({ transaction_history: filtered });
      },
    ],
    [
      "get_available_stocks",
      [req("sector")],
      ({ sector }) => {
        const sectors: PyDict = pyDict({
          Technology: ["AAPL", "GOOG", "MSFT", "NVDA"],
          Automobile: ["TSLA", "F", "GM"],
        });
        if (this.longContext) {
          (sectors.get("Technology") as PyValue[]).push(
            ...iterate(this.session.longContextValue("TECHNOLOGY_EXTENSION")),
          );
          (sectors.get("Automobile") as PyValue[]).push(
            ...iterate(this.session.longContextValue("AUTOMOBILE_EXTENSION")),
          );
        }
        return pyDict({ stock_list: dictGet(sectors, hashKey(sector!)) ?? [] });
      },
    ],
    [
      "filter_stocks_by_price",
      [req("stocks"), req("min_price"), req("max_price")],
      ({ stocks, min_price, max_price }) => {
        const priceOf = (symbol: PyValue): PyValue => {
          const stock = dictGet(asDict(this.stocks), hashKey(symbol)) ?? new Map();
          return dictGet(asDict(stock), "price") ?? 0n;
        };
        return pyDict({
          filtered_stocks: iterate(stocks!).filter(
            (s) => pyGe(priceOf(s), min_price!) && pyLe(priceOf(s), max_price!),
          ),
        });
      },
    ],
    [
      "add_to_watchlist",
      [req("stock")],
      ({ stock }) => {
        if (!contains(this.watchList, stock!) && contains(asDict(this.stocks), stock!))
          append(this.watchList, stock!);
        return pyDict({ watchlist: this.watchList });
      },
    ],
    [
      "notify_price_change",
      [req("stocks"), req("threshold")],
      ({ stocks, threshold }) => {
        const table = asDict(this.stocks);
        const changed = iterate(stocks!).filter(
          (s) =>
            contains(table, s) &&
            pyGe(pyAbs(getItem(getItem(table, s), "percent_change")), threshold!),
        );
        if (changed.length === 0)
          return pyDict({ notification: "No significant price changes in the selected stocks." });
        return pyDict({
          notification: `Stocks ${changed.map((s) => pyStr(s)).join(", ")} have significant price changes.`,
        });
      },
    ],
  ]);
}
