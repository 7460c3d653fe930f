/**
 * @module eval/bfcl/classes/trading-bot
 * Port of upstream's `TradingBot` (trading_bot.py): orders, account, watch list, stocks and a
 * transaction history whose timestamps come from `random.Random(1053520)`.
 */
import * as py from "../../python/index.js";
import type { PyDict, PyValue } from "../../python/index.js";
import { type Args, type BfclApi, methodTable, opt, req, stateFields, tableGet } from "../api.js";
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
    () => py.pyDict({ account_id: 12345n, balance: 10000.0, binding_card: 1974202140965533n }),
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
  private random = new py.PyRandom(1053520);

  constructor(private readonly session: BfclSession) {}

  loadScenario(scenario: PyDict, longContext: boolean): void {
    const orders = py.asDict(py.getOrMake(scenario, "orders", defaultOrders));
    this.orders = new Map(
      [...orders].map(([k, v]) => [typeof k === "string" && /^[0-9]+$/.test(k) ? BigInt(k) : k, v]),
    );
    TRADING_FIELDS.load(this, scenario);
    this.longContext = longContext;
    const seed = py.getOrMake(scenario, "random_seed", () => 1053520n);
    this.random = new py.PyRandom(typeof seed === "bigint" ? seed : 1053520n);
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

  /** `body` for a logged-in user; otherwise upstream's error asking to log in to `what`. */
  private loggedIn(what: string, body: (a: Args) => PyValue): (a: Args) => PyValue {
    return (a) =>
      py.truthy(this.authenticated)
        ? body(a)
        : py.pyDict({ error: `User not authenticated. Please log in to ${what}.` });
  }

  private balanceChange(kind: "withdrawal" | "deposit", amount: PyValue, sign: 1 | -1): void {
    const account = py.asDict(this.accountInfo);
    const balance = py.getItem(account, "balance");
    account.set("balance", sign === 1 ? py.pyAdd(balance, amount) : py.pySub(balance, amount));
    py.append(
      this.transactionHistory,
      py.pyDict({ type: kind, amount, timestamp: this.transactionTimestamp() }),
    );
  }

  readonly methods = methodTable([
    ["get_current_time", [], () => py.pyDict({ current_time: "10:30 AM" })],
    [
      "get_symbol_by_name",
      [req("name")],
      ({ name }) => py.pyDict({ symbol: tableGet(SYMBOLS, py.hashKey(name!), "Stock not found") }),
    ],
    [
      "get_stock_info",
      [req("symbol")],
      ({ symbol }) => {
        const stocks = py.asDict(this.stocks);
        if (!py.contains(stocks, symbol!))
          return py.pyDict({ error: `Stock with symbol '${py.pyStr(symbol!)}' not found.` });
        const stock = py.asDict(py.getItem(stocks, symbol!));
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
        if (!py.contains(this.orders, order_id!)) {
          return py.pyDict({
            error: `Order with ID ${py.pyStr(order_id!)} not found.Here is the list of orders_id: ${py.pyRepr([...this.orders.keys()])}`,
          });
        }
        const order = py.asDict(py.getItem(this.orders, order_id!));
        if (!this.longContext) return order;
        const copy = new Map(order);
        const symbol = py.getItem(order, "symbol");
        const metadata: PyDict = new Map();
        for (const [key, template] of py.asDict(
          this.session.longContextValue("ORDER_DETAIL_EXTENSION"),
        )) {
          metadata.set(key, py.formatNamed(template as string, { symbol }));
        }
        copy.set("metadata", metadata);
        return copy;
      },
    ],
    [
      "cancel_order",
      [req("order_id")],
      ({ order_id }) => {
        if (!py.contains(this.orders, order_id!))
          return py.pyDict({ error: `Order with ID ${py.pyStr(order_id!)} not found.` });
        const order = py.asDict(py.getItem(this.orders, order_id!));
        if (py.pyEquals(py.getItem(order, "status"), "Completed")) {
          return py.pyDict({
            error: `Can't cancel order ${py.pyStr(order_id!)}. Order is already completed.`,
          });
        }
        order.set("status", "Cancelled");
        return py.pyDict({ order_id: order_id!, status: "Cancelled" });
      },
    ],
    [
      "place_order",
      [req("order_type"), req("symbol"), req("price"), req("amount")],
      this.loggedIn("place an order", ({ order_type, symbol, price, amount }) => {
        if (!py.contains(py.asDict(this.stocks), symbol!))
          return py.pyDict({ error: `Invalid stock symbol: ${py.pyStr(symbol!)}` });
        if (py.pyLe(price!, 0n) || py.pyLe(amount!, 0n))
          return py.pyDict({ error: "Price and amount must be positive values." });
        if (py.lower(order_type!) === "buy") {
          const totalCost = py.pyMul(py.pyFloat(price!), py.pyInt(amount!)) as number;
          const balance = py.dictGet(py.asDict(this.accountInfo), "balance") ?? 0n;
          if (py.pyGt(totalCost, balance)) {
            return py.pyDict({
              error: `Insufficient funds: required $${py.formatFixed(totalCost, 2)} but only $${py.formatFixed(py.pyFloat(balance), 2)} available.`,
            });
          }
        }
        const floatPrice = py.pyFloat(price!);
        const orderId = this.orderCounter;
        py.dictSet(
          this.orders,
          py.hashKey(orderId),
          py.pyDict({
            id: orderId,
            order_type: order_type!,
            symbol: symbol!,
            price: floatPrice,
            amount: amount!,
            status: "Open",
          }),
        );
        this.orderCounter = py.pyAdd(this.orderCounter, 1n);
        return py.pyDict({
          order_id: orderId,
          order_type: order_type!,
          status: "Pending",
          price: floatPrice,
          amount: amount!,
        });
      }),
    ],
    [
      "withdraw_funds",
      [req("amount")],
      this.loggedIn("make a transaction", ({ amount }) => {
        if (!py.pyEquals(this.marketStatus, "Open"))
          return py.pyDict({ error: "Market is closed. Transactions are not allowed." });
        if (py.pyLe(amount!, 0n))
          return py.pyDict({ error: "Transaction amount must be positive." });
        if (py.pyGt(amount!, py.getItem(this.accountInfo, "balance")))
          return py.pyDict({ error: "Insufficient funds for withdrawal." });
        this.balanceChange("withdrawal", amount!, -1);
        return py.pyDict({
          status: "Withdrawal successful",
          new_balance: py.getItem(this.accountInfo, "balance"),
        });
      }),
    ],
    ["get_account_info", [], this.loggedIn("view account information", () => this.accountInfo)],
    [
      "trading_login",
      [req("username"), req("password")],
      () => {
        if (py.truthy(this.authenticated)) return py.pyDict({ status: "Already logged in" });
        this.authenticated = true;
        return py.pyDict({ status: "Logged in successfully" });
      },
    ],
    ["trading_get_login_status", [], () => py.pyDict({ status: py.truthy(this.authenticated) })],
    [
      "trading_logout",
      [],
      () => {
        if (!py.truthy(this.authenticated))
          return py.pyDict({ status: "No user is currently logged in" });
        this.authenticated = false;
        return py.pyDict({ status: "Logged out successfully" });
      },
    ],
    [
      "fund_account",
      [req("amount")],
      this.loggedIn("fund the account", ({ amount }) => {
        if (py.pyLe(amount!, 0n)) return py.pyDict({ error: "Funding amount must be positive." });
        this.balanceChange("deposit", amount!, 1);
        return py.pyDict({
          status: "Account funded successfully",
          new_balance: py.getItem(this.accountInfo, "balance"),
        });
      }),
    ],
    [
      "remove_stock_from_watchlist",
      [req("symbol")],
      this.loggedIn("modify the watchlist", ({ symbol }) => {
        if (!py.contains(this.watchList, symbol!))
          return py.pyDict({ error: `Stock ${py.pyStr(symbol!)} not found in watchlist.` });
        py.removeFirst(this.watchList, symbol!);
        return py.pyDict({
          status: `Stock ${py.pyStr(symbol!)} removed from watchlist successfully.`,
        });
      }),
    ],
    [
      "get_watchlist",
      [],
      () => {
        if (!py.truthy(this.authenticated))
          return ["Error: User not authenticated. Please log in to view the watchlist."];
        if (this.longContext)
          return [
            ...py.iterate(this.watchList),
            ...py.iterate(this.session.longContextValue("WATCH_LIST_EXTENSION")),
          ];
        return py.pyDict({ watchlist: this.watchList });
      },
    ],
    [
      "get_order_history",
      [],
      () => {
        if (!py.truthy(this.authenticated))
          return [
            py.pyDict({ error: "User not authenticated. Please log in to view order history." }),
          ];
        return py.pyDict({ history: [...this.orders.keys()] });
      },
    ],
    [
      "get_transaction_history",
      [opt("start_date", null), opt("end_date", null)],
      ({ start_date, end_date }) => {
        if (!py.truthy(this.authenticated)) {
          return [
            py.pyDict({
              error: "User not authenticated. Please log in to view transaction history.",
            }),
          ];
        }
        const start = py.truthy(start_date!) ? parseDateTime(start_date!, "%Y-%m-%d") : -Infinity;
        const end = py.truthy(end_date!) ? parseDateTime(end_date!, "%Y-%m-%d") : Infinity;
        const filtered = py.iterate(this.transactionHistory).filter((t) => {
          const at = parseDateTime(py.getItem(t, "timestamp"), "%Y-%m-%d %H:%M:%S");
          return start <= at && at <= end;
        });
        if (this.longContext)
          filtered.push(
            ...py.iterate(this.session.longContextValue("TRANSACTION_HISTORY_EXTENSION")),
          );
        return py.pyDict({ transaction_history: filtered });
      },
    ],
    [
      "get_available_stocks",
      [req("sector")],
      ({ sector }) => {
        const sectors: PyDict = py.pyDict({
          Technology: ["AAPL", "GOOG", "MSFT", "NVDA"],
          Automobile: ["TSLA", "F", "GM"],
        });
        if (this.longContext) {
          (sectors.get("Technology") as PyValue[]).push(
            ...py.iterate(this.session.longContextValue("TECHNOLOGY_EXTENSION")),
          );
          (sectors.get("Automobile") as PyValue[]).push(
            ...py.iterate(this.session.longContextValue("AUTOMOBILE_EXTENSION")),
          );
        }
        return py.pyDict({ stock_list: py.dictGet(sectors, py.hashKey(sector!)) ?? [] });
      },
    ],
    [
      "filter_stocks_by_price",
      [req("stocks"), req("min_price"), req("max_price")],
      ({ stocks, min_price, max_price }) => {
        const priceOf = (symbol: PyValue): PyValue => {
          const stock = py.dictGet(py.asDict(this.stocks), py.hashKey(symbol)) ?? new Map();
          return py.dictGet(py.asDict(stock), "price") ?? 0n;
        };
        return py.pyDict({
          filtered_stocks: py
            .iterate(stocks!)
            .filter((s) => py.pyGe(priceOf(s), min_price!) && py.pyLe(priceOf(s), max_price!)),
        });
      },
    ],
    [
      "add_to_watchlist",
      [req("stock")],
      ({ stock }) => {
        if (!py.contains(this.watchList, stock!) && py.contains(py.asDict(this.stocks), stock!))
          py.append(this.watchList, stock!);
        return py.pyDict({ watchlist: this.watchList });
      },
    ],
    [
      "notify_price_change",
      [req("stocks"), req("threshold")],
      ({ stocks, threshold }) => {
        const table = py.asDict(this.stocks);
        const changed = py
          .iterate(stocks!)
          .filter(
            (s) =>
              py.contains(table, s) &&
              py.pyGe(py.pyAbs(py.getItem(py.getItem(table, s), "percent_change")), threshold!),
          );
        if (changed.length === 0)
          return py.pyDict({
            notification: "No significant price changes in the selected stocks.",
          });
        return py.pyDict({
          notification: `Stocks ${changed.map((s) => py.pyStr(s)).join(", ")} have significant price changes.`,
        });
      },
    ],
  ]);
}
