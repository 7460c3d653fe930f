/**
 * @module eval/bfcl/classes/message-api
 * Port of upstream's `MessageAPI` (message_api.py): users, an inbox of one-entry dicts
 * `{receiver_id: message}`, and message ids drawn from `random.Random(200191)`.
 */
import * as py from "../../python/index.js";
import type { PyDict, PyValue } from "../../python/index.js";
import { type BfclApi, methodTable, req, stateFields } from "../api.js";

function defaultInbox(): PyValue[] {
  return [
    py.pyDict({ USR002: "My name is Alice. I want to connect." }),
    py.pyDict({ USR003: "Could you upload the file?" }),
    py.pyDict({ USR004: "Could you upload the file?" }),
  ];
}

/** `list(message.items())[0]` of an inbox entry. */
function firstItem(message: PyValue): [PyValue, PyValue] {
  const entries = [...py.asDict(message)];
  if (entries.length === 0) throw new py.PyException("IndexError", "list index out of range");
  return entries[0]!;
}

/** MessageAPI's public attributes, in `vars()` order. */
const MESSAGE_FIELDS = stateFields<MessageAPI>([
  ["generated_ids", "generatedIds", () => new Set()],
  ["user_count", "userCount", () => 4n],
  [
    "user_map",
    "userMap",
    () => py.pyDict({ Alice: "USR001", Bob: "USR002", Catherine: "USR003", Daniel: "USR004" }),
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
  private random = new py.PyRandom(200191);

  loadScenario(scenario: PyDict): void {
    const seed = py.getOrMake(scenario, "random_seed", () => 200191n);
    this.random = new py.PyRandom(typeof seed === "bigint" ? seed : 200191n);
    MESSAGE_FIELDS.load(this, scenario);
  }

  publicState(): Array<[string, PyValue]> {
    return MESSAGE_FIELDS.state(this);
  }

  /** `_generate_id`: a 5-digit id not drawn before. */
  private generateId(): PyDict {
    const ids = this.generatedIds;
    if (!(ids instanceof Set)) throw py.attributeError(ids, "add");
    let id = BigInt(this.random.randint(10000, 99999));
    while (ids.has(id)) id = BigInt(this.random.randint(10000, 99999));
    ids.add(id);
    return py.pyDict({ new_id: id });
  }

  private loggedOut(): PyDict | null {
    return py.truthy(this.currentUser)
      ? null
      : py.pyDict({ error: "No user is currently logged in." });
  }

  readonly methods = methodTable([
    ["list_users", [], () => py.pyDict({ user_list: [...py.asDict(this.userMap).keys()] })],
    [
      "get_user_id",
      [req("user")],
      ({ user }) => {
        const map = py.asDict(this.userMap);
        if (!py.contains(map, user!))
          return py.pyDict({ error: `User '${py.pyStr(user!)}' not found in the workspace.` });
        return py.pyDict({ user_id: map.get(py.hashKey(user!)) ?? null });
      },
    ],
    [
      "message_login",
      [req("user_id")],
      ({ user_id }) => {
        if (!py.contains([...py.asDict(this.userMap).values()], user_id!)) {
          return py.pyDict({
            login_status: false,
            message: `User ID '${py.pyStr(user_id!)}' not found.`,
          });
        }
        this.currentUser = user_id!;
        return py.pyDict({
          login_status: true,
          message: `User '${py.pyStr(user_id!)}' logged in successfully.`,
        });
      },
    ],
    [
      "message_get_login_status",
      [],
      () => py.pyDict({ login_status: py.truthy(this.currentUser) }),
    ],
    [
      "send_message",
      [req("receiver_id"), req("message")],
      ({ receiver_id, message }) => {
        const denied = this.loggedOut();
        if (denied) return denied;
        if (!py.contains([...py.asDict(this.userMap).values()], receiver_id!)) {
          return py.pyDict({ error: `Receiver ID '${py.pyStr(receiver_id!)}' not found.` });
        }
        const messageId = this.generateId();
        const entry: PyDict = new Map();
        py.dictSet(entry, py.hashKey(receiver_id!), message!);
        py.append(this.inbox, entry);
        this.messageCount = py.pyAdd(this.messageCount, 1n);
        return py.pyDict({
          sent_status: true,
          message_id: messageId,
          message: `Message sent to '${py.pyStr(receiver_id!)}' successfully.`,
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
          if (py.pyEquals(receiver, receiver_id!)) {
            // list.remove deletes the first entry equal to this one, which may sit earlier.
            const target = inbox[i]!;
            inbox.splice(
              inbox.findIndex((m) => py.pyEquals(m, target)),
              1,
            );
            return py.pyDict({
              deleted_status: true,
              receiver_id: receiver,
              message: `Receiver ${py.pyStr(receiver_id!)}'s latest message deleted successfully.`,
            });
          }
        }
        return py.pyDict({ error: `Receiver ID ${py.pyStr(receiver_id!)} not found.` });
      },
    ],
    [
      "view_messages_sent",
      [],
      () => {
        const denied = this.loggedOut();
        if (denied) return denied;
        const sent: PyDict = new Map();
        for (const message of py.iterate(this.inbox)) {
          const [receiver, content] = firstItem(message);
          const key = py.hashKey(receiver);
          const list = sent.get(key);
          if (list === undefined) sent.set(key, [content]);
          else (list as PyValue[]).push(content);
        }
        return py.pyDict({ messages: sent });
      },
    ],
    [
      "add_contact",
      [req("user_name")],
      ({ user_name }) => {
        const map = py.asDict(this.userMap);
        if (py.contains(map, user_name!))
          return py.pyDict({ error: `User name '${py.pyStr(user_name!)}' already exists.` });
        this.userCount = py.pyAdd(this.userCount, 1n);
        const userId = `USR${py.pyStr(this.userCount).padStart(3, "0")}`;
        if (py.contains([...map.values()], userId))
          return py.pyDict({ error: `User ID '${userId}' already exists.` });
        py.dictSet(map, py.hashKey(user_name!), userId);
        return py.pyDict({
          added_status: true,
          user_id: userId,
          message: `Contact '${py.pyStr(user_name!)}' added successfully.`,
        });
      },
    ],
    [
      "search_messages",
      [req("keyword")],
      ({ keyword }) => {
        const denied = this.loggedOut();
        if (denied) return denied;
        const needle = py.lower(keyword!);
        const results: PyValue[] = [];
        for (const message of py.iterate(this.inbox)) {
          const [receiver, content] = firstItem(message);
          if (py.lower(content).includes(needle))
            results.push(py.pyDict({ receiver_id: receiver, message: content }));
        }
        return py.pyDict({ results });
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
        for (const message of py.iterate(this.inbox)) {
          const [receiver] = firstItem(message);
          received += 1n;
          if (!contacts.some((c) => py.pyEquals(c, receiver))) contacts.push(receiver);
        }
        return py.pyDict({
          stats: py.pyDict({ received_count: received, total_contacts: BigInt(contacts.length) }),
        });
      },
    ],
  ]);
}
