/**
 * @module cli/interrupt
 * The one Ctrl-C handler of long commands (`spade run`, `spade eval ...`): the first Ctrl-C (or
 * SIGTERM) aborts the command's signal so it can stop cleanly; a second ends the process at once.
 */
import { setMaxListeners } from "node:events";

/**
 * Aborts the returned signal on the first Ctrl-C (or SIGTERM), after printing `notice` on stderr.
 * The handler then removes itself, so a second one ends the process the default way, at once.
 * `dispose` removes it when the command ends on its own.
 */
export function interruptSignal(notice: string): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal); // every request in flight listens to it
  const dispose = () => {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  };
  function onSignal() {
    dispose();
    process.stderr.write(`\n${notice}\n`);
    controller.abort();
  }
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  return { signal: controller.signal, dispose };
}

/**
 * Runs `body` with the signal of `interruptSignal(notice)` and removes the handler when `body`
 * ends, however it ends: the one try/finally of every long command.
 */
export async function withInterrupt<T>(
  notice: string,
  body: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const interrupt = interruptSignal(notice);
  try {
    return await body(interrupt.signal);
  } finally {
    interrupt.dispose();
  }
}
