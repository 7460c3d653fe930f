/**
 * @module eval/bfcl/classes/trading-defaults
 * The default orders and stocks of upstream's TradingBot (`DEFAULT_STATE`), used when a
 * scenario leaves them out.
 */
import { pyDict, type PyValue } from "../../python/index.js";

/** Default `orders` (int keys). */
export function defaultOrders(): PyValue {
  return new Map<bigint, PyValue>([
    [
      12345n,
      pyDict({
        id: 12345n,
        order_type: "Buy",
        symbol: "AAPL",
        price: 210.65,
        amount: 10n,
        status: "Completed",
      }),
    ],
    [
      12446n,
      pyDict({
        id: 12446n,
        order_type: "Sell",
        symbol: "GOOG",
        price: 2840.56,
        amount: 5n,
        status: "Pending",
      }),
    ],
  ]);
}

/** Default `stocks`: price, percent change, volume and moving averages per symbol. */
export function defaultStocks(): PyValue {
  const row = (price: number, percentChange: number, volume: number, ma5: number, ma20: number) =>
    pyDict({ price, percent_change: percentChange, volume, "MA(5)": ma5, "MA(20)": ma20 });
  return pyDict({
    AAPL: row(227.16, 0.17, 2.552, 227.11, 227.09),
    GOOG: row(2840.34, 0.24, 1.123, 2835.67, 2842.15),
    TSLA: row(667.92, -0.12, 1.654, 671.15, 668.2),
    MSFT: row(310.23, 0.09, 3.234, 309.88, 310.11),
    NVDA: row(220.34, 0.34, 1.234, 220.45, 220.67),
    ALPH: row(1320.45, -0.08, 1.567, 1321.12, 1325.78),
    OMEG: row(457.23, 0.12, 2.345, 456.78, 458.12),
    QUAS: row(725.89, -0.03, 1.789, 726.45, 728.0),
    NEPT: row(88.34, 0.19, 0.654, 88.21, 88.67),
    SYNX: row(345.67, 0.11, 2.112, 345.34, 346.12),
    ZETA: row(22.09, -0.05, 0.789, 22.12, 22.34),
  });
}
