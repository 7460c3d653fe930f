import { describe, expect, it } from "vitest";
import transcripts from "./apis.transcripts.json";
import { decodeCalls } from "./calls.js";
import { AceWorld, MULTI_TURN_ERROR_TEXT, type ExecutionMode } from "./world.js";

const PHONE = ["BaseApi", "MessageApi", "ReminderApi", "FoodPlatform"];

function world(
  lang: "en" | "zh",
  classes = PHONE,
  base = { wifi: false, logged_in: true },
): AceWorld {
  return new AceWorld(lang, classes, { BaseApi: base });
}

/** Executes one message (upstream syntax) and returns its result strings. */
function run(w: AceWorld, message: string, mode: ExecutionMode = "multi_step"): string[] {
  const calls = decodeCalls(message);
  if (calls === null) throw new Error(`undecodable: ${message}`);
  return w.execute(calls, mode).results;
}

/** One message of a transcript and the results it gives (null: sent, its results not checked). */
type Step = [message: string, results: string[] | null];

/** Sends the messages of transcript `name` (apis.transcripts.json) to `w` in order, checking each. */
function replay(w: AceWorld, name: keyof typeof transcripts): void {
  for (const [message, results] of transcripts[name] as Step[]) {
    const got = run(w, message);
    if (results !== null) expect(got, message).toEqual(results);
  }
}

describe("BaseApi and dispatch to every instance", () => {
  it("turn_on_wifi switches Wi-Fi on every phone app and answers as the last one does", () => {
    const w = world("en");
    expect(run(w, "[turn_on_wifi()]")).toEqual([
      '{"status": true, "message": "Wi-Fi has been turned on"}',
    ]);
    expect(w.savedState()[0]).toEqual({ BaseApi: { wifi: true, logged_in: true } });
    // FoodPlatform's own wifi flag is on too: login now works.
    expect(run(w, "[login_food_platform(username='Eve', password='password123')]")).toEqual([
      '{"status": true, "message": "User Eve has successfully logged in!"}',
    ]);
  });

  it("writes Chinese texts ASCII-escaped, as json.dumps does", () => {
    expect(run(world("zh"), "[turn_on_wifi()]")).toEqual([
      '{"status": true, "message": "wifi\\u5df2\\u7ecf\\u6253\\u5f00"}',
    ]);
  });

  it("loads each class with its own config and then BaseApi's (a misspelled BaseApi key means defaults)", () => {
    const w = new AceWorld("en", ["BaseApi", "MessageApi"], {
      Baspi: { wifi: true, logged_in: false },
    });
    expect(w.savedState()).toEqual([]); // nothing recorded before a message completes
    run(w, "[get_latest_message_id()]");
    expect(w.savedState()[0]).toEqual({ BaseApi: { wifi: false, logged_in: true } });
  });
});

describe("MessageApi", () => {
  it("sends only when logged in, on Wi-Fi, with room, between known users", () => {
    const w = world("en", ["BaseApi", "MessageApi"], { wifi: false, logged_in: false });
    replay(w, "sendMessage");
    const inbox = w.savedState()[1]?.MessageApi?.inbox as Record<string, unknown>;
    expect(Object.keys(inbox)).toEqual(["1", "2", "4", "5", "6", "7"]);
    expect(inbox["7"]).toEqual({ sender_id: "USR100", receiver_id: "USR101", message: "hi" });
  });

  it("finds the earliest and latest message by date, and fails on a sent message (it has no time)", () => {
    const w = world("en", ["BaseApi", "MessageApi"], { wifi: true, logged_in: true });
    replay(w, "earliestAndLatest");
  });

  it("views and searches messages (search needs no login; the keyword must be a str)", () => {
    const w = world("en", ["BaseApi", "MessageApi"], { wifi: true, logged_in: false });
    replay(w, "viewAndSearch");
  });

  it("looks message ids up with Python's key equality and raises for unhashable ones", () => {
    const w = world("en", ["BaseApi", "MessageApi"], { wifi: true, logged_in: true });
    replay(w, "messageIdEquality");
  });
});

describe("ReminderApi", () => {
  it("adds with the next id, refuses when full, views by title", () => {
    const w = world("en");
    expect(run(w, "[add_reminder(title='A', description='d', time='2024-07-15 09:30')]")).toEqual([
      '{"status": true, "message": "Reminder \'A\' was successfully added."}',
    ]);
    const list = w.savedState()[2]?.ReminderApi?.reminder_list as Record<string, unknown>;
    expect(list["4"]).toEqual({
      reminder_id: 4,
      title: "A",
      description: "d",
      time: "2024-07-15 09:30",
      notified: false,
    });
    replay(w, "remindersWhenFull");
  });

  it("has search_reminders only in Chinese, where every match raises (strftime on a str)", () => {
    // Each message goes to a fresh world in its language.
    const rows = transcripts.searchRemindersByLanguage as Array<["en" | "zh", string, string[]]>;
    for (const [lang, message, results] of rows) {
      expect(run(world(lang), message), `${lang} ${message}`).toEqual(results);
    }
  });
});

describe("FoodPlatform", () => {
  it("needs Wi-Fi to log in, a login to order, and prices in floats", () => {
    const w = world("en");
    replay(w, "foodOrders");
  });

  it("rejects non-int quantities (a float, a string) but takes True as 1, as isinstance does", () => {
    const w = world("en", PHONE, { wifi: true, logged_in: true });
    run(w, "[login_food_platform(username='Jack', password='password654')]");
    const order = (q: string) =>
      run(
        w,
        `[add_food_delivery_order(username='Jack', merchant_name='Heytea', items=[{'product': 'Cheese Milk Tea', 'quantity': ${q}}])]`,
      )[0];
    for (const [quantity, result] of transcripts.orderQuantities as Array<[string, string]>) {
      expect(order(quantity), quantity).toBe(result);
    }
  });

  it("refuses an order that spends the whole balance in Chinese only (>= against >)", () => {
    const order = (lang: "en" | "zh", merchant: string, product: string) => {
      const w = world(lang, PHONE, { wifi: true, logged_in: true });
      run(w, "[login_food_platform(username='Jack', password='password654')]"); // balance 120.0
      return run(
        w,
        `[add_food_delivery_order(username='Jack', merchant_name='${merchant}', items=[{'product': '${product}', 'quantity': 8}])]`,
      )[0]; // 8 x 15.0
    };
    expect(order("en", "Hema Fresh", "Organic Vegetable Pack")).toBe(
      '{"status": true, "message": "Food delivery order successfully placed with Hema Fresh. Total amount: 120.0 yuan"}',
    );
    expect(order("zh", "盒马生鲜", "有机蔬菜包")).toBe(
      '{"status": false, "message": "\\u4f59\\u989d\\u4e0d\\u8db3\\uff0c\\u65e0\\u6cd5\\u4e0b\\u5355"}',
    );
  });

  it("search_orders matches items in English and raises on them in Chinese", () => {
    const en = world("en", PHONE, { wifi: true, logged_in: true });
    run(en, "[login_food_platform(username='Eve', password='password123')]");
    run(
      en,
      "[add_food_delivery_order(username='Eve', merchant_name='Heytea', items=[{'product': 'Cheese Milk Tea', 'quantity': 1}])]",
    );
    expect(run(en, "[search_orders(keyword='cheese')]")[0]).toBe(
      '{"status": true, "orders": [{"user_name": "Eve", "merchant_name": "Heytea", "items": [{"product": "Cheese Milk Tea", "quantity": 1, "price_per_unit": 25.0}], "total_price": 25.0}]}',
    );
    const zh = world("zh", PHONE, { wifi: true, logged_in: true });
    run(zh, "[login_food_platform(username='Eve', password='password123')]");
    run(
      zh,
      "[add_food_delivery_order(username='Eve', merchant_name='喜茶', items=[{'product': '芝士奶茶', 'quantity': 1}])]",
    );
    expect(run(zh, "[search_orders(keyword='喜茶'), search_orders(keyword='芝士')]")).toEqual([
      expect.stringContaining('"status": true'),
      "Error during execution: 'dict' object has no attribute 'lower'",
    ]);
  });
});

describe("Travel", () => {
  const travel = (lang: "en" | "zh" = "en") => new AceWorld(lang, ["Travel"], {});
  /** Travel's saved attributes: the users' balances and the reservations. */
  const travelState = (w: AceWorld) =>
    w.savedState()[0]?.Travel as {
      users: Record<string, { cash_balance: number }>;
      reservations: Array<Record<string, unknown>>;
    };

  it("books with baggage fees by membership, paying in int yuan from float balances", () => {
    const w = travel();
    replay(w, "reserveWithBaggage");
    const state = travelState(w);
    expect(state.users.user1?.cash_balance).toBe(700);
    expect(state.reservations[4]).toEqual({
      reservation_id: "res_5",
      user_id: "user1",
      flight_no: "CA1234",
      payment_method: "cash",
      cabin: "Economy Class",
      baggage: 3,
    });
    expect(run(w, "[get_user_details(user_id='user1', password='password123')]")).toEqual([
      '{"user_name": "Eve", "cash_balance": 700.0, "bank_balance": 50000.0, "membership_level": "regular"}',
    ]);
  });

  it("raises instead of answering on a wrong password or an unknown flight, as upstream", () => {
    replay(travel(), "travelRaises");
  });

  it("modifies flight, cabin and baggage with the old flight's prices", () => {
    const w = travel();
    replay(w, "modifyFlight");
    expect(travelState(w).reservations[1]).toMatchObject({
      flight_no: "CZ4321",
      cabin: "Economy Class",
      baggage: 3,
    });
  });

  it("cancels with a refund to cash but keeps the reservation", () => {
    const w = travel();
    replay(w, "cancelWithRefund");
    const state = travelState(w);
    expect(state.users.user1?.cash_balance).toBe(3200);
    expect(state.reservations).toHaveLength(4);
  });

  it("finds connections and exposes helper methods as tools", () => {
    const w = travel("zh");
    const [found] = run(
      w,
      "[find_transfer_flights(origin_city='北京', transfer_city='南京', destination_city='深圳')]",
    );
    expect(found?.startsWith("[{'first_leg': {'flight_no': 'MU3561'")).toBe(true);
    expect(
      run(
        w,
        "[get_baggage_allowance(membership_level='gold', cabin_class='商务舱'), calculate_baggage_fee(membership_level='silver', cabin_class='经济舱', baggage_count=4)]",
      ),
    ).toEqual(["3", "100"]);
    expect(run(w, "[get_flight_details(origin='上海', destination='深圳')]")).toEqual([
      "没有符合条件的直达航班",
    ]);
  });
});

describe("upstream's executor quirks", () => {
  it("multi_turn: the first raising call aborts the message with the literal, unformatted text", () => {
    const w = world("en");
    const calls = decodeCalls("[turn_on_wifi(), check_balance(), login_device()]");
    expect(w.execute(calls ?? [], "multi_turn")).toEqual({
      results: [MULTI_TURN_ERROR_TEXT],
      abortedBy: "FoodPlatform.check_balance() missing 1 required positional argument: 'user_name'",
    });
    expect(MULTI_TURN_ERROR_TEXT).toBe("Error during execution: {str(e)}");
    // The call before the error still changed the state.
    run(w, "[login_device()]");
    expect(w.savedState()[0]).toEqual({ BaseApi: { wifi: true, logged_in: true } });
  });

  it("an unknown function re-reports the previous result of the same message", () => {
    replay(world("en"), "unknownFunction");
  });
});
