/**
 * @module eval/bfcl/classes/message-api
 * Port of upstream's `MessageAPI` (message_api.py): users, an inbox of one-entry dicts
 * `{receiver_id: message}`, and message ids drawn from `random.Random(200191)`.
 */
import {
  append,
  asDict,
  attributeError,
  contains,
  dictSet,
  getOrMake,
  hashKey,
  iterate,
  lower,
  pyAdd,
  pyDict,
  type PyDict,
  pyEquals,
  PyException,
  PyRandom,
  pyStr,
  type PyValue,
  truthy,
} from "../../python/index.js";
import { type BfclApi, methodTable, req, stateFields } from "../api.js";

function defaultInbox(): PyValue[] {
  return [
    pyDict({ USR002: "My name is Alice. I want to connect." }),
    pyDict({ USR003: "Could you upload the file?" }),
    pyDict({ USR004: "Could you upload the file?" }),
  ];
}

/** `list(message.items())[0]` of an inbox entry. */
function firstItem(message: PyValue): [PyValue, PyValue] {
  const entries = [...asDict(message)];
  if (entries.length === 0) throw new PyException("IndexError", "list index out of range");
  return entries[0]!;
}

/** MessageAPI's public attributes, in `vars()` order. */
const MESSAGE_FIELDS = stateFields<MessageAPI>([
  ["generated_ids", "generatedIds", () => new Set()],
  ["user_count", "userCount", () => 4n],
  [
    "user_map",
    "userMap",
    () => pyDict({ Alice: "USR001", Bob: "USR002", Catherine: "USR003", Daniel: "USR004" }),
  ],
  ["inbox", "inbox", defaultInbox],
  ["message_count", "messageCount", () => 3n],
  ["current_user", "currentUser", () => null],
]);

/** Port of upstream's MessageAPI. */
export class MessageAPI implements BfclApi {
  readonly className = "MessageAPI";
  generatedIds: PyValue = new Set();
  userCount: PyValue = 4n;
  userMap: PyValue = new Map();
  inbox: PyValue = [];
  messageCount: PyValue = 3n;
  currentUser: PyValue = null;
  private random = new PyRandom(200191);

  loadScenario(scenario: PyDict): void {
    const seed = getOrMake(scenario, "random_seed", () => 200191n);
    this.random = new PyRandom(typeof seed === "bigint" ? seed : 200191n);
    MESSAGE_FIELDS.load(this, scenario);
  }

  publicState(): Array<[string, PyValue]> {
    return MESSAGE_FIELDS.state(this);
  }

  /** `_generate_id`: a 5-digit id not drawn before. */
  private generateId(): PyDict {
    const ids = this.generatedIds;
    if (!(ids instanceof Set)) throw attributeError(ids, "add");
    let id = BigInt(this.random.randint(10000, 99999));
    while (ids.has(id)) id = BigInt(this.random.randint(10000, 99999));
    ids.add(id);
    return pyDict({ new_id: id });
  }

  private loggedOut(): PyDict | null {
    return truthy(this.currentUser) ? null : pyDict({ error: "No user is currently logged in." });
  }

  readonly methods = methodTable([
    ["list_users", [], () => pyDict({ user_list: [...asDict(this.userMap).keys()] })],
    [
      "get_user_id",
      [req("user")],
      ({ user }) => {
        const map = asDict(this.userMap);
        if (!contains(map, user!))
          return pyDict({ error: `User '${pyStr(user!)}' not found in the workspace.` });
        return pyDict({ user_id: map.get(hashKey(user!)) ?? null });
      },
    ],
    [
      "message_login",
      [req("user_id")],
      ({ user_id }) => {
        if (!contains([...asDict(this.userMap).values()], user_id!)) {
          return pyDict({
            login_status: false,
            message: `User ID '${pyStr(user_id!)}' not found.`,
          });
        }
        this.currentUser = user_id!;
        return pyDict({
          login_status: true,
          message: `User '${pyStr(user_id!)}' logged in successfully.`,
        });
      },
    ],
    ["message_get_login_status", [], () => pyDict({ login_status: truthy(this.currentUser) })],
    [
      "send_message",
      [req("receiver_id"), req("message")],
      ({ receiver_id, message }) => {
        const denied = this.loggedOut();
        if (denied) return denied;
        if (!contains([...asDict(this.userMap).values()], receiver_id!)) {
          return pyDict({ error: `Receiver ID '${pyStr(receiver_id!)}' not found.` });
        }
        const messageId = this.generateId();
        const entry: PyDict = new Map();
        dictSet(entry, hashKey(receiver_id!), message!);
        append(this.inbox, entry);
        this.messageCount = pyAdd(this.messageCount, 1n);
        return pyDict({
          sent_status: true,
          message_id: messageId,
          message: `Message sent to '${pyStr(receiver_id!)}' successfully.`,
        });
      },
    ],
    [
      "delete_message",
      [req("receiver_id")],
      ({ receiver_id }) => {
        const denied = this.loggedOut();
        if (denied) return denied;
        const inbox = this.inbox as PyValue[];
        for (let i = inbox.length - 1; i >= 0; i--) {
          const [receiver] = firstItem(inbox[i]!);
          if (pyEquals(receiver, receiver_id!)) {
            // list.remove deletes the first entry equal to this one, which may sit earlier.
            const target = inbox[i]!;
            inbox.splice(
              inbox.findIndex((m) => pyEquals(m, target)),
              1,
            );
            return pyDict({
              deleted_status: true,
              receiver_id: receiver,
              message: `Receiver ${pyStr(receiver_id!)}'s latest message deleted successfully.`,
            });
          }
        }
        return pyDict({ error: `Receiver ID ${pyStr(receiver_id!)} not found.` });
      },
    ],
    [
      "view_messages_sent",
      [],
      () => {
        const denied = this.loggedOut();
        if (denied) return denied;
        const sent: PyDict = new Map();
        for (const message of iterate(this.inbox)) {
          const [receiver, content] = firstItem(message);
          const key = hashKey(receiver);
          const list = sent.get(key);
          if (list === undefined) sent.set(key, [content]);
          else (list as PyValue[]).push(content);
        }
        return pyDict({ messages: sent });
      },
    ],
    [
      "add_contact",
      [req("user_name")],
      ({ user_name }) => {
        const map = asDict(this.userMap);
        if (contains(map, user_name!))
          return pyDict({ error: `User name '${pyStr(user_name!)}' already exists.` });
        this.userCount = pyAdd(this.userCount, 1n);
        const userId = `USR${pyStr(this.userCount).padStart(3, "0")}`;
        if (contains([...map.values()], userId))
          return pyDict({ error: `User ID '${userId}' already exists.` });
        dictSet(map, hashKey(user_name!), userId);
        return pyDict({
          added_status: true,
          user_id: userId,
          message: `Contact '${pyStr(user_name!)}' added successfully.`,
        });
      },
    ],
    [
      "search_messages",
      [req("keyword")],
      ({ keyword }) => {
        const denied = this.loggedOut();
        if (denied) return denied;
        const needle = lower(keyword!);
        const results: PyValue[] = [];
        for (const message of iterate(this.inbox)) {
          const [receiver, content] = firstItem(message);
          if (lower(content).includes(needle))
            results.push(pyDict({ receiver_id: receiver, message: content }));
        }
        return pyDict({ results });
      },
    ],
    [
      "get_message_stats",
      [],
      () => {
        const denied = this.loggedOut();
        if (denied) return denied;
        const contacts: PyValue[] = [];
        let received = 0n;
        for (const message of iterate(this.inbox)) {
          const [receiver] = firstItem(message);
          received += 1n;
          if (!contacts.some((c) => pyEquals(c, receiver))) contacts.push(receiver);
        }
        return pyDict({
          stats: pyDict({ received_count: received, total_contacts: BigInt(contacts.length) }),
        });
      },
    ],
  ]);
}
