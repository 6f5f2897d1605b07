/**
 * Error classes shared by every process. The class decides what happens next:
 * a ConfigError stops the process once with a message saying how to fix it; a
 * ContentApiError carries the HTTP status so callers can tell "gone" from "retry".
 */

export class ConfigError extends Error {
  override readonly name = "ConfigError";
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
  }
}

/** A non-2xx answer of the content API (after any rate-limit retries ran out). */
export class ContentApiError extends Error {
  override readonly name: string = "ContentApiError";
  constructor(
    readonly status: number,
    readonly url: string,
    /** The parsed JSON body when there was one (Prismic puts `type` and `message` there). */
    readonly body: unknown,
  ) {
    super(`Unexpected status code [${status}] on ${url}${describeBody(body)}`);
  }

  /** Prismic's error type from the body, e.g. `api_notfound_error`, `parsing-error`. */
  get type(): string | undefined {
    const type = (this.body as { type?: unknown } | null)?.type;
    return typeof type === "string" ? type : undefined;
  }

  /** 5xx and 429 are worth retrying later; 4xx other than 429 are not. */
  get retryable(): boolean {
    return this.status >= 500 || this.status === 429;
  }
}

/**
 * A 429 whose `retry-after` is longer than a process may wait in place (PRISMIC_RATE_LIMIT_MAX_WAIT_MS),
 * or one more than the retries allow: `retryAt` (epoch ms) is when the content API said to come
 * back. A job failing with it is retried then (the worker's `retry-after` backoff), having
 * released the publish lock instead of sleeping on it.
 */
export class RateLimitedError extends ContentApiError {
  override readonly name: string = "RateLimitedError";
  constructor(
    url: string,
    body: unknown,
    readonly retryAt: number,
    why: string,
  ) {
    super(429, url, body);
    this.message = `${this.message} (the content API asks to wait until ${clockTime(retryAt)}: ${why})`;
  }
}

/** `14:03:21`, UTC: how `pressroom status` and errors name the end of a wait. */
export function clockTime(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(11, 19);
}

/** The content API did not answer within the configured timeout. */
export class ContentTimeoutError extends Error {
  override readonly name = "ContentTimeoutError";
  readonly retryable = true;
  constructor(
    readonly url: string,
    readonly timeoutMs: number,
  ) {
    super(`Response timeout for ${url} (no answer within ${timeoutMs} ms)`);
  }
}

/**
 * The process is shutting down (SIGTERM): its waits and requests in flight are cut short. What it
 * was doing is retried elsewhere — a job by another worker, a page by the visitor (503).
 */
export class ShuttingDownError extends Error {
  override readonly name = "ShuttingDownError";
  readonly retryable = true;
  constructor(what: string) {
    super(`${what} is shutting down`);
  }
}

/** A query refused before any request is made: it could only ever give a wrong answer. */
export class ContentQueryError extends Error {
  override readonly name = "ContentQueryError";
}

function describeBody(body: unknown): string {
  const message = (body as { message?: unknown } | null)?.message;
  return typeof message === "string" && message ? `: ${message}` : "";
}

/**
 * A service a command needs does not answer (Redis, the content API): the command says which, in one
 * line (`message`), and what it could still tell without it (`facts`), never a stack trace.
 */
export class UnreachableError extends Error {
  override readonly name = "UnreachableError";
  constructor(
    message: string,
    /** Lines the command could still give (from storage, say); may be empty. */
    readonly facts: readonly string[] = [],
  ) {
    super(message);
  }
}
