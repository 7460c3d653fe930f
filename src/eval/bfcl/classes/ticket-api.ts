/**
 * @module eval/bfcl/classes/ticket-api
 * Port of upstream's `TicketAPI` (ticket_api.py): a queue of ticket dicts, a counter and a
 * logged-in user; any non-empty username and password log in.
 */
import * as py from "../../python/index.js";
import type { PyDict, PyValue } from "../../python/index.js";
import { type BfclApi, methodTable, opt, req, stateFields } from "../api.js";

const VALID_FIELDS = ["title", "description", "status", "priority"];

/** TicketAPI's public attributes, in `vars()` order. */
const TICKET_FIELDS = stateFields<TicketAPI>([
  ["ticket_queue", "ticketQueue", () => []],
  ["ticket_counter", "ticketCounter", () => 1n],
  ["current_user", "currentUser", () => null],
]);

/** Port of upstream's TicketAPI. */
export class TicketAPI implements BfclApi {
  readonly className = "TicketAPI";
  ticketQueue: PyValue = [];
  ticketCounter: PyValue = 1n;
  currentUser: PyValue = null;

  loadScenario(scenario: PyDict): void {
    TICKET_FIELDS.load(this, scenario);
  }

  publicState(): Array<[string, PyValue]> {
    return TICKET_FIELDS.state(this);
  }

  private findTicket(ticketId: PyValue): PyDict | null {
    for (const ticket of py.iterate(this.ticketQueue)) {
      if (py.pyEquals(py.getItem(ticket, "id"), ticketId)) return py.asDict(ticket);
    }
    return null;
  }

  /**
   * `close_ticket` and `resolve_ticket`: sets the ticket's status (then `also` changes it more),
   * unless it is missing or has that status already.
   */
  private moveTo(
    ticketId: PyValue,
    status: "Closed" | "Resolved",
    also: (t: PyDict) => void,
  ): PyDict {
    const ticket = this.findTicket(ticketId);
    if (!ticket) return this.notFound(ticketId);
    const done = status.toLowerCase();
    if (py.pyEquals(py.getItem(ticket, "status"), status))
      return py.pyDict({ error: `Ticket with ID ${py.pyStr(ticketId)} is already ${done}.` });
    ticket.set("status", status);
    also(ticket);
    return py.pyDict({ status: `Ticket ${py.pyStr(ticketId)} has been ${done} successfully.` });
  }

  private notFound(ticketId: PyValue): PyDict {
    return py.pyDict({ error: `Ticket with ID ${py.pyStr(ticketId)} not found.` });
  }

  readonly methods = methodTable([
    [
      "create_ticket",
      [req("title"), opt("description", ""), opt("priority", 1n)],
      ({ title, description, priority }) => {
        if (!py.truthy(this.currentUser))
          return py.pyDict({ error: "User not authenticated. Please log in to create a ticket." });
        if (py.pyLt(priority!, 1n) || py.pyGt(priority!, 5n)) {
          return py.pyDict({ error: "Invalid priority. Priority must be between 1 and 5." });
        }
        const ticket = py.pyDict({
          id: this.ticketCounter,
          title: title!,
          description: description!,
          status: "Open",
          priority: priority!,
          created_by: this.currentUser,
        });
        py.append(this.ticketQueue, ticket);
        this.ticketCounter = py.pyAdd(this.ticketCounter, 1n);
        return ticket;
      },
    ],
    [
      "get_ticket",
      [req("ticket_id")],
      ({ ticket_id }) => this.findTicket(ticket_id!) ?? this.notFound(ticket_id!),
    ],
    [
      "close_ticket",
      [req("ticket_id")],
      ({ ticket_id }) => this.moveTo(ticket_id!, "Closed", () => {}),
    ],
    [
      "resolve_ticket",
      [req("ticket_id"), req("resolution")],
      ({ ticket_id, resolution }) =>
        this.moveTo(ticket_id!, "Resolved", (ticket) => ticket.set("resolution", resolution!)),
    ],
    [
      "edit_ticket",
      [req("ticket_id"), req("updates")],
      ({ ticket_id, updates }) => {
        const ticket = this.findTicket(ticket_id!);
        if (!ticket) return this.notFound(ticket_id!);
        const changes = py.asDict(updates!);
        // Python joins a set here, whose order follows string hashes; insertion order is used instead.
        const invalid = [...changes.keys()].filter((k) => !VALID_FIELDS.includes(k as string));
        if (invalid.length > 0)
          return py.pyDict({
            error: `Invalid fields for update: ${invalid.map((k) => py.pyStr(k)).join(", ")}`,
          });
        for (const [key, value] of changes)
          if (value !== null) py.dictSet(ticket, py.hashKey(key), value);
        return py.pyDict({
          status: `Ticket ${py.pyStr(ticket_id!)} has been updated successfully.`,
        });
      },
    ],
    [
      "ticket_login",
      [req("username"), req("password")],
      ({ username, password }) => {
        if (py.truthy(username!) && py.truthy(password!)) {
          this.currentUser = username!;
          return py.pyDict({ success: true });
        }
        return py.pyDict({ success: false });
      },
    ],
    ["ticket_get_login_status", [], () => py.pyDict({ login_status: py.truthy(this.currentUser) })],
    [
      "logout",
      [],
      () => {
        if (py.truthy(this.currentUser)) {
          this.currentUser = null;
          return py.pyDict({ success: true });
        }
        return py.pyDict({ success: false });
      },
    ],
    [
      "get_user_tickets",
      [opt("status", null)],
      ({ status }) => {
        if (!py.truthy(this.currentUser))
          return [py.pyDict({ error: "User not authenticated. Please log in to view tickets." })];
        let tickets = py
          .iterate(this.ticketQueue)
          .filter((t) => py.pyEquals(py.getItem(t, "created_by"), this.currentUser));
        if (py.truthy(status!)) {
          const wanted = py.lower(status!);
          tickets = tickets.filter((t) => py.lower(py.getItem(t, "status")) === wanted);
        }
        return tickets;
      },
    ],
  ]);
}
