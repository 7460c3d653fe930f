/**
 * @module eval/bfcl/classes
 * The eight ported BFCL multi-turn API classes, by their Python class names.
 */
import { SpadeError } from "../../../errors.js";
import type { BfclApi } from "../api.js";
import type { BfclSession } from "../session.js";
import { GorillaFileSystem } from "./gorilla-file-system.js";
import { MathAPI } from "./math-api.js";
import { MessageAPI } from "./message-api.js";
import { TicketAPI } from "./ticket-api.js";
import { TradingBot } from "./trading-bot.js";
import { TravelAPI } from "./travel-api.js";
import { TwitterAPI } from "./twitter-api.js";
import { VehicleControlAPI } from "./vehicle-control.js";

const FACTORIES: Record<string, (session: BfclSession) => BfclApi> = {
  GorillaFileSystem: (s) => new GorillaFileSystem(s),
  MathAPI: () => new MathAPI(),
  MessageAPI: () => new MessageAPI(),
  TwitterAPI: () => new TwitterAPI(),
  TicketAPI: () => new TicketAPI(),
  TradingBot: (s) => new TradingBot(s),
  TravelAPI: (s) => new TravelAPI(s),
  VehicleControlAPI: (s) => new VehicleControlAPI(s),
};

/** The class names this port implements. */
export const BFCL_CLASS_NAMES: readonly string[] = Object.keys(FACTORIES);

/** Classes without state: upstream never calls `_load_scenario` on them. */
export function isStatelessClass(className: string): boolean {
  return className === "MathAPI";
}

/** A fresh, unloaded instance of `className`. */
export function createApi(className: string, session: BfclSession): BfclApi {
  const make = FACTORIES[className];
  if (!make) {
    throw new SpadeError("E_NOT_FOUND", `unknown BFCL API class ${className}`, {
      nextStep: `use one of ${BFCL_CLASS_NAMES.join(", ")}`,
    });
  }
  return make(session);
}
