/**
 * @module eval/acebench/travel-data
 * The initial data of ACEBench's `Travel` class (users, flights, reservations) and its texts,
 * in English and Chinese. Prices, seats and bags are ints (bigint) and balances floats (number), as upstream.
 */
import { pyDict, type PyDict } from "../python/index.js";
import type { Lang } from "./api-base.js";

const CITY = {
  Beijing: "北京",
  Shanghai: "上海",
  Nanjing: "南京",
  Shenzhen: "深圳",
  Xiamen: "厦门",
  Chengdu: "成都",
  Fuzhou: "福州",
} as const;

type City = keyof typeof CITY;

/** flight_no, origin, destination, depart, arrive, seats, economy price, business price. */
const FLIGHTS: Array<[string, City, City, string, string, number, number, number]> = [
  ["CA1234", "Beijing", "Shanghai", "2024-07-15 08:00:00", "2024-07-15 10:30:00", 5, 1200, 3000],
  ["MU5678", "Shanghai", "Beijing", "2024-07-16 09:00:00", "2024-07-16 11:30:00", 3, 1900, 3000],
  ["CZ4321", "Shanghai", "Beijing", "2024-07-16 20:00:00", "2024-07-16 22:00:00", 8, 2500, 4000],
  ["CZ4352", "Shanghai", "Beijing", "2024-07-17 20:00:00", "2024-07-17 22:00:00", 8, 1600, 2500],
  ["MU3561", "Beijing", "Nanjing", "2024-07-18 08:00:00", "2024-07-18 10:00:00", 8, 1500, 4000],
  ["MU1566", "Beijing", "Nanjing", "2024-07-18 20:00:00", "2024-07-18 22:00:00", 8, 1500, 4000],
  ["CZ1765", "Nanjing", "Shenzhen", "2024-07-17 20:30:00", "2024-07-17 22:00:00", 8, 1500, 2500],
  ["CZ1765", "Nanjing", "Shenzhen", "2024-07-18 12:30:00", "2024-07-18 15:00:00", 8, 1500, 2500],
  ["MH1765", "Xiamen", "Chengdu", "2024-07-17 12:30:00", "2024-07-17 15:00:00", 8, 1500, 2500],
  ["MH2616", "Chengdu", "Xiamen", "2024-07-18 18:30:00", "2024-07-18 21:00:00", 8, 1500, 2500],
  ["MH2616", "Chengdu", "Fuzhou", "2024-07-16 18:30:00", "2024-07-16 21:00:00", 8, 1500, 2500],
];

/** reservation_id, user_id, flight_no, business cabin?, origin, destination (payment bank, baggage 1). */
const RESERVATIONS: Array<[string, string, string, boolean, City, City]> = [
  ["res_1", "user1", "CA1234", false, "Beijing", "Shanghai"],
  ["res_2", "user1", "MU5678", true, "Shanghai", "Beijing"],
  ["res_3", "user2", "MH1765", true, "Xiamen", "Chengdu"],
  ["res_4", "user2", "MU2616", true, "Chengdu", "Xiamen"],
];

/** The texts and names that differ by language. */
export const TRAVEL_TEXT = {
  en: {
    economy: "Economy Class",
    business: "Business Class",
    airlineCancelled: "The airline has canceled the flight.",
    noDirect: "There are no direct flights that meet the criteria.",
    badLogin: "Incorrect username or password.",
    needId: "Please provide a valid reservation ID or user ID",
    noTransfer: "No connecting flights that meet the criteria were found.",
    authFailed: "Authentication failed. Please check your user ID and password.",
    badPayment: "Invalid payment method",
    poorCash: "Your cash balance is insufficient. Please consider using another payment method.",
    poorBank: "Your bank balance is insufficient. Please consider using another payment method.",
    booked: (id: string, cost: string) =>
      `Booking successful. Reservation ID: ${id}. Total cost: ${cost} yuan (including baggage fees).`,
    noReservation: "Reservation not found or user ID does not match.",
    noFlightInfo: "Flight information not found.",
    noUserInfo: "User information not found.",
    flightChanged: "Flight number has been changed.",
    changeFailed: "Flight change failed: Invalid new flight number or destination does not match.",
    cabinPaid: (d: string) => `Cabin change successful. Price difference paid: ${d}.`,
    cabinPoor: "Insufficient balance to pay the cabin price difference.",
    cabinRefund: (d: string) => `Cabin change successful. Price difference refunded: ${d}.`,
    baggagePaid: (c: string) => `Baggage has been added. Additional fee to be paid: ${c}.`,
    baggagePoor: "Insufficient balance to pay the additional baggage fees.",
    noFees: "Modification completed with no additional fees.",
    badUser: "Invalid user ID.",
    badReservation: "Invalid reservation ID or it does not belong to the user.",
    badFlight: "Invalid flight information.",
    used: "The flight segment has been used and cannot be canceled.",
    cancelledByAirline: (r: string) =>
      `The flight has been canceled. Your reservation will be canceled free of charge, and ${r} yuan has been refunded.`,
    freeCancel: (r: string) =>
      `More than 24 hours before departure. Free cancellation successful, ${r} yuan has been refunded.`,
    feeCancel: (f: string, r: string) =>
      `Less than 24 hours before departure. A cancellation fee of ${f} yuan has been deducted, and ${r} yuan has been refunded.`,
  },
  zh: {
    economy: "经济舱",
    business: "商务舱",
    airlineCancelled: "航空公司取消航班",
    noDirect: "没有符合条件的直达航班",
    badLogin: "用户名或密码不正确",
    needId: "请提供有效的预订ID或用户ID",
    noTransfer: "未找到符合条件的中转航班。",
    authFailed: "认证失败，请检查用户ID和密码。",
    badPayment: "支付方式无效",
    poorCash: "cash余额不足，请考虑换一种支付方式",
    poorBank: "bank余额不足，请考虑换一种支付方式",
    booked: (id: string, cost: string) =>
      `预订成功，预订号：${id}，总费用：${cost}元（包含行李费用）。`,
    noReservation: "预订未找到或用户ID不匹配。",
    noFlightInfo: "航班信息未找到。",
    noUserInfo: "用户信息未找到。",
    flightChanged: "航班号已更改。",
    changeFailed: "航班更改失败：新的航班号无效或目的地不匹配。",
    cabinPaid: (d: string) => `舱位更改成功。已支付差价: ${d}。`,
    cabinPoor: "余额不足，无法支付舱位差价。",
    cabinRefund: (d: string) => `舱位更改成功。已退款差价: ${d}。`,
    baggagePaid: (c: string) => `行李已增加。需支付额外费用: ${c}。`,
    baggagePoor: "余额不足，无法支付额外行李费用。",
    noFees: "修改完成，无需额外费用。",
    badUser: "用户ID无效。",
    badReservation: "预订ID无效或与该用户无关。",
    badFlight: "航班信息无效。",
    used: "航段已使用，无法取消。",
    cancelledByAirline: (r: string) => `航班已取消，您的预订将被免费取消，已退款${r}元。`,
    freeCancel: (r: string) => `距离出发时间超过24小时，免费取消成功，已退款${r}元。`,
    feeCancel: (f: string, r: string) => `距离出发时间不足24小时，已扣除取消费${f}元，退款${r}元。`,
  },
} as const;

/** The initial `users`, `flights` and `reservations` of one language. */
export function travelData(lang: Lang): {
  users: PyDict;
  flights: PyDict[];
  reservations: PyDict[];
} {
  const city = (c: City) => (lang === "en" ? c : CITY[c]);
  const text = TRAVEL_TEXT[lang];
  const user = (name: string, password: string, cash: number, bank: number, level: string) =>
    pyDict({
      user_name: name,
      password,
      cash_balance: cash,
      bank_balance: bank,
      membership_level: level,
    });
  return {
    users: pyDict({
      user1: user("Eve", "password123", 2000, 50000, "regular"),
      user2: user("Frank", "password456", 8000, 8000, "silver"),
      user3: user("Grace", "password789", 1000, 5000, "gold"),
    }),
    flights: FLIGHTS.map(([no, from, to, depart, arrive, seats, economy, business]) =>
      pyDict({
        flight_no: no,
        origin: city(from),
        destination: city(to),
        depart_time: depart,
        arrival_time: arrive,
        status: "available",
        seats_available: BigInt(seats),
        economy_price: BigInt(economy),
        business_price: BigInt(business),
      }),
    ),
    reservations: RESERVATIONS.map(([id, userId, no, business, from, to]) =>
      pyDict({
        reservation_id: id,
        user_id: userId,
        flight_no: no,
        payment_method: "bank",
        cabin: business ? text.business : text.economy,
        baggage: 1n,
        origin: city(from),
        destination: city(to),
      }),
    ),
  };
}
