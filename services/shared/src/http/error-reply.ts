import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { WarnLimiter } from "../warn-limiter.ts";
import {
  builtInPage,
  FALLBACK_CSS,
  FALLBACK_CSS_PATH,
  jsonError,
  prefersJson,
  RETRY_AFTER_SECONDS,
  withRequestId,
} from "./error-pages.ts";

const missingPages = new WarnLimiter();

export interface ErrorAnswer {
  status: number;
  /** What failed, for the log only (absent for a plain 404). */
  error?: unknown;
  /**
   * Reads the stored error page for this status (the site's `404.html`, `500.html`, `503.html`).
   * Undefined (no such page) or a throw (storage down) gives the built-in fallback page.
   */
  storedPage?: () => Promise<Buffer | string | undefined>;
  /** The built-in page's sentence instead of the status's own. */
  text?: string;
  /** On a 503; default RETRY_AFTER_SECONDS. */
  retryAfterSeconds?: number;
}

/**
 * Answers an error the way a visitor, an editor or a JSON client should see it: the status kept,
 * `cache-control: no-store`, `Retry-After` on 503, the request id in the body and in `x-request-id`,
 * and what failed only in the log line carrying that id.
 */
export async function sendError(request: FastifyRequest, reply: FastifyReply, answer: ErrorAnswer) {
  const { status } = answer;
  const requestId = String(request.id);
  if (answer.error !== undefined) {
    request.log.error(
      { err: answer.error, statusCode: status, requestId, url: request.url },
      `answering ${status}: ${errorName(answer.error)}`,
    );
  }
  reply.code(status).header("cache-control", "no-store").header("x-request-id", requestId);
  if (status === 503) reply.header("retry-after", String(answer.retryAfterSeconds ?? RETRY_AFTER_SECONDS));
  if (prefersJson(request.headers.accept))
    return reply.type("application/json").send(jsonError(status, requestId));
  if (!answer.storedPage)
    return reply.type("text/html; charset=utf-8").send(builtInPage({ status, requestId, text: answer.text }));
  let stored: string | undefined;
  try {
    const body = await answer.storedPage();
    stored = body === undefined ? undefined : body.toString();
    // Not this request's fault, and every request would say it again: once a minute per status.
    const taken = stored === undefined ? missingPages.take(String(status)) : undefined;
    if (taken)
      request.log.error(
        { statusCode: status, requestId, suppressedSinceLast: taken.suppressed },
        `the stored ${status} page is missing; built-in fallback`,
      );
  } catch (error) {
    request.log.error(
      { err: error, statusCode: status, requestId },
      "reading the stored error page failed; built-in fallback",
    );
  }
  // "Failed as well": the request itself failed (5xx) and then so did its error page.
  const html =
    stored !== undefined
      ? withRequestId(stored, requestId)
      : builtInPage({
          status,
          requestId,
          text: answer.text,
          fallback: status >= 500 ? "failed-as-well" : "failed",
        });
  return reply.type("text/html; charset=utf-8").send(html);
}

/** Registers the fallback page's stylesheet (`/_pressroom/error-page.css`), served from memory. */
export function fallbackStyles(app: FastifyInstance): void {
  app.get(FALLBACK_CSS_PATH, async (_request, reply) =>
    reply.type("text/css; charset=utf-8").header("cache-control", "public, max-age=3600").send(FALLBACK_CSS),
  );
}

function errorName(error: unknown): string {
  return error instanceof Error ? error.name : "error";
}
