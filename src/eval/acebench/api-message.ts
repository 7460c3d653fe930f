/**
 * @module eval/acebench/api-message
 * `MessageApi`: six users and an inbox of at most six messages (send, delete, view, search,
 * latest/earliest by date), ported from ACEBench's phone platform with its checks and texts.
 */
import * as py from "../python/index.js";
import type { PyDict, PyKey, PyValue } from "../python/index.js";
import { methodsOf, statusMessage } from "./api-base.js";
import { BaseApi, type ApiClassName, type Lang, type MethodDef } from "./api-base.js";

const USERS: Array<[string, string, string, string]> = [
  ["Eve", "USR100", "123-456-7890", "Software Engineer"],
  ["Frank", "USR101", "234-567-8901", "Data Scientist"],
  ["Grace", "USR102", "345-678-9012", "Product Manager"],
  ["Helen", "USR103", "456-789-0123", "UX Designer"],
  ["Isaac", "USR104", "567-890-1234", "DevOps Engineer"],
  ["Jack", "USR105", "678-901-2345", "Marketing Specialist"],
];

const INBOX_TEXT = {
  en: [
    "Hey Frank, don't forget about our meeting on 2024-06-11 at 4 PM in Conference Room 1.",
    'Can you help me order a "Margherita Pizza" delivery? The merchant is Domino\'s.',
    'Please check the milk tea delivery options available from Heytea and purchase a cheaper milk tea for me. After making the purchase, remember to reply to me with "Already bought."',
  ],
  zh: [
    "Hey Frank, don't forget about our meeting on 2024-06-11 at 4 PM in Conference Room 1.",
    '你能帮我点一个"玛格丽特披萨"的外卖吗,商家是达美乐。',
    "帮我查一些喜茶有哪些奶茶外卖，买一杯便宜些的奶茶。买完以后记得回复我,回复的内容是（已经买好了）",
  ],
} as const;

const TEXT = {
  en: {
    sendNotLoggedIn: "Device not logged in, unable to send message",
    sendNoWifi: "Wi-Fi is turned off, cannot send messages at this time",
    inboxFull: "Inbox capacity is full. You need to ask the user which message to delete.",
    noSenderOrReceiver: "Sender or receiver does not exist",
    sent: (to: string) => `Message successfully sent to ${to}.`,
    deleteNotLoggedIn: "Device not logged in, unable to delete message",
    noSuchId: "Message ID does not exist",
    deleted: (id: string) => `Message ID ${id} has been successfully deleted.`,
    viewNotLoggedIn: "Device not logged in, unable to view message information",
    noSender: "Sender does not exist",
    noReceiver: "Receiver does not exist",
    noRecords: "No related message records found",
    noUser: "User does not exist",
    noKeyword: "No messages found containing the keyword",
    timesNotLoggedIn:
      "Device not logged in, unable to retrieve all message times and their corresponding message IDs.",
    latestNotLoggedIn: "Device not logged in, unable to retrieve the latest sent message ID.",
    emptyInbox: "No message records found",
    latest: (id: string) => `The latest message ID is ${id}`,
    earliestNotLoggedIn: "Device not logged in, unable to retrieve the earliest sent message ID.",
    earliest: (id: string) => `The earliest message ID is ${id}`,
  },
  zh: {
    sendNotLoggedIn: "device未登录，无法发送短信",
    sendNoWifi: "wifi关闭，此时不能发送信息",
    inboxFull: "内存容量不够了，你需要询问user删除哪一条短信。",
    noSenderOrReceiver: "发送者或接收者不存在",
    sent: (to: string) => `短信成功发送给${to}。`,
    deleteNotLoggedIn: "device未登录，无法删除短信",
    noSuchId: "短信ID不存在",
    deleted: (id: string) => `短信ID ${id} 已成功删除。`,
    viewNotLoggedIn: "device未登录，无法查看短信信息",
    noSender: "发送者不存在",
    noReceiver: "接收者不存在",
    noRecords: "没有找到相关的短信记录",
    noUser: "用户不存在",
    noKeyword: "没有找到包含关键词的短信",
    timesNotLoggedIn: "device未登录，获取所有短信的时间以及对应的短信编号。",
    latestNotLoggedIn: "device未登录，无法获取最新发送的短信ID。",
    emptyInbox: "短信记录为空",
    latest: (id: string) => `最新的短信ID是 ${id}`,
    earliestNotLoggedIn: "device未登录，无法获取最早发送的短信ID",
    earliest: (id: string) => `最早的短信ID是 ${id}`,
  },
} as const;

/** `datetime.strptime(text, "%Y-%m-%d")` as a comparable day number. */
function parseDay(text: PyValue): number {
  if (typeof text !== "string")
    throw new py.PyException(
      "TypeError",
      `strptime() argument 1 must be str, not ${py.pyTypeName(text)}`,
    );
  const m = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(text);
  const day = m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : NaN;
  if (!m || new Date(day).getUTCDate() !== Number(m[3])) {
    throw new py.PyException(
      "ValueError",
      `time data ${JSON.stringify(text)} does not match format '%Y-%m-%d'`,
    );
  }
  return day;
}

/** Text messages between the six users. */
export class MessageApi extends BaseApi {
  override readonly className: ApiClassName = "MessageApi";
  /** Most messages the inbox holds. */
  max_capacity = 6;
  /** Users by name: user_id, phone_number, occupation. */
  user_list: PyDict = new Map(
    USERS.map(([name, id, phone, job]) => [
      name,
      py.pyDict({ user_id: id, phone_number: phone, occupation: job }),
    ]),
  );
  /** Messages by integer id. */
  inbox: PyDict;
  /** The id of the last message sent. */
  message_id_counter = 6n;

  constructor(lang: Lang) {
    super(lang);
    const [first, second, third] = INBOX_TEXT[lang];
    const message = (from: string, to: string, text: string, time: string) =>
      py.pyDict({ sender_id: from, receiver_id: to, message: text, time });
    this.inbox = new Map<PyKey, PyValue>([
      [1n, message("USR100", "USR101", first, "2024-06-09")],
      [2n, message("USR101", "USR102", second, "2024-03-09")],
      [3n, message("USR102", "USR103", third, "2023-12-05")],
      [4n, message("USR103", "USR102", "No problem Helen, I can assist you.", "2024-09-09")],
      [5n, message("USR104", "USR105", "Isaac, are you available for a call?", "2024-06-06")],
      [6n, message("USR105", "USR104", "Yes Jack, let's do it in 30 minutes.", "2024-01-15")],
    ]);
  }

  override attributes(): Array<[string, PyValue]> {
    return [
      ...super.attributes(),
      ["max_capacity", BigInt(this.max_capacity)],
      ["user_list", this.user_list],
      ["inbox", this.inbox],
      ["message_id_counter", this.message_id_counter],
    ];
  }

  private userId(name: PyValue): PyValue {
    return py.getItem(py.getItem(this.user_list, name), "user_id");
  }

  private extremeId(pick: "latest" | "earliest"): PyValue {
    let bestId: PyValue = null;
    let bestDay: number | null = null;
    for (const [id, data] of this.inbox) {
      const day = parseDay(py.getItem(data, "time"));
      if (bestDay === null || (pick === "latest" ? day > bestDay : day < bestDay)) {
        bestDay = day;
        bestId = id;
      }
    }
    return bestId;
  }

  /** `get_latest_message_id` and `get_earliest_message_id`: the id `extremeId` picks, said. */
  private extremeMessage(
    pick: "latest" | "earliest",
    refused: string,
    said: (id: string) => string,
  ): PyDict {
    if (this.loggedOut()) return statusMessage(false, refused);
    if (this.inbox.size === 0) return statusMessage(false, TEXT[this.lang].emptyInbox);
    const id = this.extremeId(pick);
    return py.pyDict([
      ["status", true],
      ["message", said(py.pyStr(id))],
      ["message_id", id],
    ]);
  }

  override methods(): Record<string, MethodDef> {
    const t = TEXT[this.lang];
    const m = methodsOf("MessageApi");
    return {
      ...this.baseMethods(),
      send_message: m(["sender_name", "receiver_name", "message"], (sender, receiver, message) => {
        if (this.loggedOut()) return statusMessage(false, t.sendNotLoggedIn);
        if (py.pyEquals(this.wifi, false)) return statusMessage(false, t.sendNoWifi);
        if (this.inbox.size >= this.max_capacity) return statusMessage(false, t.inboxFull);
        if (!py.contains(this.user_list, sender) || !py.contains(this.user_list, receiver))
          return statusMessage(false, t.noSenderOrReceiver);
        const senderId = this.userId(sender);
        const receiverId = this.userId(receiver);
        this.message_id_counter += 1n;
        this.inbox.set(
          this.message_id_counter,
          py.pyDict({ sender_id: senderId, receiver_id: receiverId, message }),
        );
        return statusMessage(true, t.sent(py.pyStr(receiver)));
      }),
      delete_message: m(["message_id"], (id) => this.deleteById(this.inbox, id, t)),
      view_messages_between_users: m(["sender_name", "receiver_name"], (sender, receiver) => {
        if (this.loggedOut()) return statusMessage(false, t.viewNotLoggedIn);
        if (!py.contains(this.user_list, sender)) return statusMessage(false, t.noSender);
        if (!py.contains(this.user_list, receiver)) return statusMessage(false, t.noReceiver);
        const senderId = this.userId(sender);
        const receiverId = this.userId(receiver);
        const found: PyValue[] = [];
        for (const [id, data] of this.inbox) {
          if (
            py.pyEquals(py.getItem(data, "sender_id"), senderId) &&
            py.pyEquals(py.getItem(data, "receiver_id"), receiverId)
          ) {
            found.push(
              py.pyDict([
                ["id", id],
                ["sender", sender],
                ["receiver", receiver],
                ["message", py.getItem(data, "message")],
              ]),
            );
          }
        }
        if (found.length === 0) return statusMessage(false, t.noRecords);
        return py.pyDict({ status: true, messages: found });
      }),
      search_messages: m(["user_name", "keyword"], (user, keyword) => {
        if (!py.contains(this.user_list, user)) return statusMessage(false, t.noUser);
        const userId = this.userId(user);
        const found: PyValue[] = [];
        for (const [id, data] of this.inbox) {
          const involved =
            py.pyEquals(py.getItem(data, "sender_id"), userId) ||
            py.pyEquals(py.getItem(data, "receiver_id"), userId);
          if (involved && py.lowerIn(keyword, py.getItem(data, "message"))) {
            found.push(
              py.pyDict([
                ["id", id],
                ["sender_id", py.getItem(data, "sender_id")],
                ["receiver_id", py.getItem(data, "receiver_id")],
                ["message", py.getItem(data, "message")],
              ]),
            );
          }
        }
        if (found.length === 0) return statusMessage(false, t.noKeyword);
        return py.pyDict({ status: true, messages: found });
      }),
      get_all_message_times_with_ids: m([], () => {
        if (this.loggedOut()) return statusMessage(false, t.timesNotLoggedIn);
        return new Map<PyKey, PyValue>(
          [...this.inbox].map(([id, data]) => [id, py.getItem(data, "time")]),
        );
      }),
      get_latest_message_id: m([], () =>
        this.extremeMessage("latest", t.latestNotLoggedIn, t.latest),
      ),
      get_earliest_message_id: m([], () =>
        this.extremeMessage("earliest", t.earliestNotLoggedIn, t.earliest),
      ),
    };
  }
}
