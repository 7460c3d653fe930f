/**
 * @module eval/acebench/api-food
 * `FoodPlatform`: six users with balances, six merchants with two-item menus, platform logins
 * (which need Wi-Fi) and delivery orders. Language differences are upstream's: the Chinese class
 * refuses an order that would empty the balance exactly (`>=`) and its `search_orders` fails on
 * order items.
 */
import * as py from "../python/index.js";
import type { PyDict, PyValue } from "../python/index.js";
import { methodsOf, statusMessage } from "./api-base.js";
import { BaseApi, type ApiClassName, type Lang, type MethodDef } from "./api-base.js";

const USERS: Array<[string, string, string, number]> = [
  ["Eve", "U100", "password123", 500],
  ["Frank", "U101", "password456", 300],
  ["Grace", "U102", "password789", 150],
  ["Helen", "U103", "password321", 800],
  ["Isaac", "U104", "password654", 400],
  ["Jack", "U105", "password654", 120],
];

type Menu = Array<[string, string, string, [string, number], [string, number]]>;

const MERCHANTS: Record<Lang, Menu> = {
  en: [
    ["Domino's", "M100", "Pizza", ["Margherita Pizza", 68], ["Super Supreme Pizza", 88]],
    [
      "Rice Village Bibimbap",
      "M101",
      "Bibimbap",
      ["Stone Pot Bibimbap", 35],
      ["Korean Beef Bibimbap", 45],
    ],
    ["Haidilao", "M102", "Hotpot", ["Beef Rolls", 68], ["Seafood Platter", 88]],
    ["Heytea", "M103", "Milk Tea", ["Cheese Milk Tea", 25], ["Four Seasons Spring Milk Tea", 22]],
    [
      "Hema Fresh",
      "M104",
      "Fresh Grocery",
      ["Organic Vegetable Pack", 15],
      ["Fresh Gift Pack", 99],
    ],
    ["Jiutian BBQ", "M105", "BBQ", ["Korean Grilled Beef", 128], ["Grilled Pork Belly", 78]],
  ],
  zh: [
    ["达美乐", "M100", "Pizza", ["玛格丽特披萨", 68], ["超级至尊披萨", 88]],
    ["米村拌饭", "M101", "Bibimbap", ["石锅拌饭", 35], ["韩式牛肉拌饭", 45]],
    ["海底捞", "M102", "Hotpot", ["牛肉卷", 68], ["海鲜拼盘", 88]],
    ["喜茶", "M103", "Milk Tea", ["芝士奶茶", 25], ["四季春奶茶", 22]],
    ["盒马生鲜", "M104", "Fresh Grocery", ["有机蔬菜包", 15], ["生鲜大礼包", 99]],
    ["九田家烤肉", "M105", "BBQ", ["韩式烤牛肉", 128], ["烤五花肉", 78]],
  ],
};

const TEXT = {
  en: {
    noWifi: "Wi-Fi is not enabled, unable to login",
    noUser: "User does not exist",
    badPassword: "Incorrect password",
    already: (u: string) => `${u} is already logged in`,
    loggedIn: (u: string) => `User ${u} has successfully logged in!`,
    nobody: "No users are currently logged in to the food platform",
    notLoggedIn: (u: string) => `User ${u} is not logged in to the food platform`,
    noMerchant: "Merchant does not exist",
    badQuantity: (q: string, p: string) => `Invalid quantity ${q} for product ${p}`,
    noProduct: (p: string, m: string) => `Product ${p} does not exist in ${m}'s menu`,
    poor: "Insufficient balance to place the order",
    ordered: (m: string, total: string) =>
      `Food delivery order successfully placed with ${m}. Total amount: ${total} yuan`,
    unknownMerchant: (m: string) => `Merchant '${m}' does not exist`,
    noOrders: "User has no order records",
    noMatch: "No matching orders found",
  },
  zh: {
    noWifi: "wifi未打开，无法登录",
    noUser: "用户不存在",
    badPassword: "密码错误",
    already: (u: string) => `${u} 已经登录`,
    loggedIn: (u: string) => `用户${u}登陆成功！`,
    nobody: "当前没有登录food platform",
    notLoggedIn: (u: string) => `用户 ${u} 未登录food platform`,
    noMerchant: "商家不存在",
    badQuantity: (q: string, p: string) => `无效的数量 ${q} 对于商品 ${p}`,
    noProduct: (p: string, m: string) => `商品 ${p} 不存在于 ${m} 的菜单中`,
    poor: "余额不足，无法下单",
    ordered: (m: string, total: string) => `外卖订单成功下单给 ${m}，总金额为 ${total} 元`,
    unknownMerchant: (m: string) => `商家 '${m}' 不存在`,
    noOrders: "用户没有订单记录",
    noMatch: "没有找到匹配的订单",
  },
} as const;

/** A food delivery platform with logins, balances and orders. */
export class FoodPlatform extends BaseApi {
  override readonly className: ApiClassName = "FoodPlatform";
  /** Users by name: user_id, password, balance (a float). */
  users: PyDict = new Map(
    USERS.map(([name, id, password, balance]) => [
      name,
      py.pyDict({ user_id: id, password, balance }),
    ]),
  );
  /** Merchants by name: merchant_id, service_type, menu of {product, price}. */
  merchant_list: PyDict;
  /** Names logged in to the platform, in login order. */
  logged_in_users: PyValue = [];
  /** Placed orders. */
  orders: PyValue[] = [];

  constructor(lang: Lang) {
    super(lang);
    this.merchant_list = new Map(
      MERCHANTS[lang].map(([name, id, type, ...menu]) => [
        name,
        py.pyDict({
          merchant_id: id,
          service_type: type,
          menu: menu.map(([product, price]) => py.pyDict({ product, price })),
        }),
      ]),
    );
  }

  override loadScenario(scenario: PyDict): void {
    super.loadScenario(scenario);
    this.logged_in_users = py.getOr(scenario, "logged_in_users", []);
  }

  override attributes(): Array<[string, PyValue]> {
    // FoodPlatform.__init__ does not call BaseApi.__init__: wifi and logged_in come last.
    return [
      ["users", this.users],
      ["merchant_list", this.merchant_list],
      ["logged_in_users", this.logged_in_users],
      ["orders", this.orders],
      ...super.attributes(),
    ];
  }

  private order(username: PyValue, merchant: PyValue, items: PyValue): PyDict {
    const t = TEXT[this.lang];
    if (!py.contains(this.logged_in_users, username))
      return statusMessage(false, t.notLoggedIn(py.pyStr(username)));
    if (!py.contains(this.merchant_list, merchant)) return statusMessage(false, t.noMerchant);
    let total: PyValue = 0; // a float: 0.0
    const orderItems: PyValue[] = [];
    for (const item of py.iterate(items)) {
      const product = py.callGet(item, "product");
      const quantity = py.callGet(item, "quantity", 1n);
      if (!py.isIntLike(quantity) || py.pyLe(quantity, 0n))
        return statusMessage(false, t.badQuantity(py.pyStr(quantity), py.pyStr(product)));
      const entry = (
        py.getItem(py.getItem(this.merchant_list, merchant), "menu") as PyValue[]
      ).find((p) => py.pyEquals(py.getItem(p, "product"), product));
      if (!entry) return statusMessage(false, t.noProduct(py.pyStr(product), py.pyStr(merchant)));
      total = py.pyAdd(total, py.pyMul(py.getItem(entry, "price"), quantity));
      orderItems.push(py.pyDict({ product, quantity, price_per_unit: py.getItem(entry, "price") }));
    }
    const user = py.getItem(this.users, username);
    const balance = py.getItem(user, "balance");
    if (this.lang === "en" ? py.pyGt(total, balance) : py.pyGe(total, balance))
      return statusMessage(false, t.poor);
    py.setItem(user, "balance", py.pySub(balance, total));
    this.orders.push(
      py.pyDict({
        user_name: username,
        merchant_name: merchant,
        items: orderItems,
        total_price: total,
      }),
    );
    return statusMessage(true, t.ordered(py.pyStr(merchant), py.pyStr(total)));
  }

  private orderMatches(order: PyValue, keyword: PyValue): boolean {
    if (py.lowerIn(keyword, py.getItem(order, "merchant_name"))) return true;
    // English matches item["product"]; Chinese calls .lower() on the item dict itself (raises).
    return py
      .iterate(py.callGet(order, "items", []))
      .some((item) => py.lowerIn(keyword, this.lang === "en" ? py.getItem(item, "product") : item));
  }

  override methods(): Record<string, MethodDef> {
    const t = TEXT[this.lang];
    const m = methodsOf("FoodPlatform");
    return {
      ...this.baseMethods(),
      login_food_platform: m(["username", "password"], (username, password) => {
        if (py.pyEquals(this.wifi, false)) return statusMessage(false, t.noWifi);
        if (!py.contains(this.users, username)) return statusMessage(false, t.noUser);
        if (!py.pyEquals(py.getItem(py.getItem(this.users, username), "password"), password))
          return statusMessage(false, t.badPassword);
        if (py.contains(this.logged_in_users, username))
          return statusMessage(false, t.already(py.pyStr(username)));
        if (!Array.isArray(this.logged_in_users))
          throw py.attributeError(this.logged_in_users, "append");
        this.logged_in_users.push(username);
        return statusMessage(true, t.loggedIn(py.pyStr(username)));
      }),
      view_logged_in_users: m([], () =>
        py.truthy(this.logged_in_users)
          ? py.pyDict({ status: true, logged_in_users: this.logged_in_users })
          : statusMessage(false, t.nobody),
      ),
      check_balance: m(["user_name"], (name) =>
        py.contains(this.users, name) ? py.getItem(py.getItem(this.users, name), "balance") : 0,
      ),
      add_food_delivery_order: m(
        ["username", "merchant_name", "items"],
        (username, merchant, items) => this.order(username, merchant, items),
      ),
      get_products: m(["merchant_name"], (merchant) => {
        const found = py.getOr(this.merchant_list, merchant);
        return py.truthy(found)
          ? py.getItem(found, "menu")
          : statusMessage(false, t.unknownMerchant(py.pyStr(merchant)));
      }),
      view_orders: m(["user_name"], (name) => {
        const mine = this.orders.filter((o) => py.pyEquals(py.getItem(o, "user_name"), name));
        return mine.length > 0
          ? py.pyDict({ status: true, orders: mine })
          : statusMessage(false, t.noOrders);
      }),
      search_orders: m(["keyword"], (keyword) => {
        const matched = this.orders.filter((o) => this.orderMatches(o, keyword));
        return matched.length > 0
          ? py.pyDict({ status: true, orders: matched })
          : statusMessage(false, t.noMatch);
      }),
    };
  }
}
