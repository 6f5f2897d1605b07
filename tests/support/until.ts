export interface UntilOptions {
  /** How long to keep asking (default 10 s). */
  timeoutMs?: number;
  /** The pause between two asks (default 50 ms). */
  intervalMs?: number;
  /**
   * A throw counts as "not yet" (a server still starting, a Redis being restarted); the last error
   * is in the timeout's message. Off by default: an unexpected error fails the wait at once.
   */
  ignoreErrors?: boolean;
}

/**
 * Asks `check` until it answers something other than `undefined` or `false`, and returns that answer:
 * a condition (`() => Promise<boolean>`) or a read (`() => Promise<T | undefined>`). After
 * `timeoutMs` it throws `timed out after <ms> ms waiting for <what>`, so a failure names what never
 * happened; `what` may be a function, asked at the timeout, to name the state the wait ended in.
 */
export async function until<T>(
  what: string | (() => string),
  check: () => T | undefined | false | Promise<T | undefined | false>,
  { timeoutMs = 10_000, intervalMs = 50, ignoreErrors = false }: UntilOptions = {},
): Promise<Exclude<T, undefined | false>> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    let answer: T | undefined | false;
    try {
      answer = await check();
    } catch (error) {
      if (!ignoreErrors) throw error;
      lastError = error;
      answer = undefined;
    }
    if (answer !== undefined && answer !== false) return answer as Exclude<T, undefined | false>;
    if (Date.now() > deadline) {
      const cause =
        lastError === undefined ? "" : ` (last error: ${String((lastError as Error)?.message ?? lastError)})`;
      const named = typeof what === "function" ? what() : what;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${named}${cause}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
