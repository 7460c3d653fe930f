/**
 * @module eval/acebench/api-reminder
 * `ReminderApi`: at most six reminders keyed by integer id (view by title, add, delete, view
 * all). As upstream, only the Chinese class has `mark_as_notified` and `search_reminders`, and the
 * latter fails whenever it matches (it calls `strftime` on a string time).
 */
import * as py from "../python/index.js";
import type { PyDict, PyKey, PyValue } from "../python/index.js";
import { methodsOf, statusMessage } from "./api-base.js";
import { BaseApi, type ApiClassName, type Lang, type MethodDef } from "./api-base.js";

const TODO_TEXT = {
  en: 'First, help Frank place a food delivery order at "Hema Fresh," ordering two "Fresh Gift Packs." Then, send a message to Frank saying, "The price of the purchased goods is () yuan." Replace the parentheses with the actual amount, keeping one decimal place.',
  zh: '首先帮Frank在"盒马生鲜"点外卖，需要定两个"生鲜大礼包"，再发短信告诉Frank："购买商品的价格是()元"。要把括号换成实际金额，保留一位小数。',
} as const;

const TEXT = {
  en: {
    viewNotLoggedIn: "The device is not logged in, so you cannot view notifications",
    noTitle: (title: string) => `No reminder found with the title '${title}'.`,
    addNotLoggedIn: "Device not logged in. Unable to add a new reminder.",
    full: "Reminder capacity is full. Unable to add a new reminder.",
    added: (title: string) => `Reminder '${title}' was successfully added.`,
    deleteNotLoggedIn: "Device not logged in. Unable to delete the specified reminder.",
    noSuchId: "Reminder ID does not exist.",
    deleted: (id: string) => `Reminder ID ${id} was successfully deleted.`,
    none: "No reminders found.",
  },
  zh: {
    viewNotLoggedIn: "device未登录，无法查看提醒",
    noTitle: (title: string) => `没有找到标题为 '${title}' 的提醒`,
    addNotLoggedIn: "device未登录，无法添加一个新的提醒",
    full: "提醒容量已满，无法添加新的提醒",
    added: (title: string) => `提醒 '${title}' 已成功添加`,
    deleteNotLoggedIn: "device未登录，无法删除指定的提醒",
    noSuchId: "提醒ID不存在",
    deleted: (id: string) => `提醒ID ${id} 已成功删除`,
    none: "没有任何提醒",
  },
} as const;

/** Reminders with a title, description and time. */
export class ReminderApi extends BaseApi {
  override readonly className: ApiClassName = "ReminderApi";
  /** Most reminders the list holds. */
  max_capacity = 6;
  /** Reminders by integer id. */
  reminder_list: PyDict;
  /** The id of the last reminder added. */
  reminder_id_counter = 3n;

  constructor(lang: Lang) {
    super(lang);
    const reminder = (id: bigint, title: string, description: string, time: string) =>
      py.pyDict({ reminder_id: id, title, description, time, notified: false });
    this.reminder_list = new Map<PyKey, PyValue>([
      [
        1n,
        reminder(
          1001n,
          "Doctor's Appointment",
          "Visit Dr. Smith for a checkup.",
          "2024-07-15 09:30",
        ),
      ],
      [
        2n,
        reminder(
          1002n,
          "Team Meeting",
          "Monthly project review with the team.",
          "2024-07-17 11:00",
        ),
      ],
      [3n, reminder(1003n, "To-do list", TODO_TEXT[lang], "2024-07-16 11:00")],
    ]);
  }

  override attributes(): Array<[string, PyValue]> {
    // ReminderApi.__init__ does not call BaseApi.__init__: wifi and logged_in come last.
    return [
      ["max_capacity", BigInt(this.max_capacity)],
      ["reminder_list", this.reminder_list],
      ["reminder_id_counter", this.reminder_id_counter],
      ...super.attributes(),
    ];
  }

  override methods(): Record<string, MethodDef> {
    const t = TEXT[this.lang];
    const m = methodsOf("ReminderApi");
    const methods: Record<string, MethodDef> = {
      ...this.baseMethods(),
      view_reminder_by_title: m(["title"], (title) => {
        if (this.loggedOut()) return statusMessage(false, t.viewNotLoggedIn);
        for (const reminder of this.reminder_list.values()) {
          if (py.pyEquals(py.getItem(reminder, "title"), title))
            return py.pyDict({ status: true, reminder });
        }
        return statusMessage(false, t.noTitle(py.pyStr(title)));
      }),
      add_reminder: m(["title", "description", "time"], (title, description, time) => {
        if (this.loggedOut()) return statusMessage(false, t.addNotLoggedIn);
        if (this.reminder_list.size >= this.max_capacity) return statusMessage(false, t.full);
        this.reminder_id_counter += 1n;
        const id = this.reminder_id_counter;
        this.reminder_list.set(
          id,
          py.pyDict({ reminder_id: id, title, description, time, notified: false }),
        );
        return statusMessage(true, t.added(py.pyStr(title)));
      }),
      delete_reminder: m(["reminder_id"], (id) => this.deleteById(this.reminder_list, id, t)),
      view_all_reminders: m([], () => {
        if (this.reminder_list.size === 0) return statusMessage(false, t.none);
        const reminders = [...this.reminder_list.values()].map((r) =>
          py.pyDict({
            title: py.getItem(r, "title"),
            description: py.getItem(r, "description"),
            time: py.getItem(r, "time"),
            notified: py.getItem(r, "notified"),
          }),
        );
        return py.pyDict({ status: true, reminders });
      }),
    };
    if (this.lang === "zh") Object.assign(methods, this.zhOnlyMethods());
    return methods;
  }

  private zhOnlyMethods(): Record<string, MethodDef> {
    const m = methodsOf("ReminderApi");
    return {
      mark_as_notified: m(["reminder_id"], (id) => {
        if (!py.contains(this.reminder_list, id)) return statusMessage(false, "提醒ID不存在");
        py.setItem(py.getItem(this.reminder_list, id), "notified", true);
        return statusMessage(true, `提醒ID ${py.pyStr(id)} 已标记为已通知`);
      }),
      search_reminders: m(["keyword"], (keyword) => {
        for (const r of this.reminder_list.values()) {
          const hit =
            py.lowerIn(keyword, py.getItem(r, "title")) ||
            py.lowerIn(keyword, py.getItem(r, "description"));
          // Upstream formats a match with time.strftime(...), but times are stored as given
          // (a str), so every match raises.
          if (hit)
            throw new py.PyException(
              "AttributeError",
              `'${py.pyTypeName(py.getItem(r, "time"))}' object has no attribute 'strftime'`,
            );
        }
        return statusMessage(false, "没有找到包含该关键词的提醒");
      }),
    };
  }
}
