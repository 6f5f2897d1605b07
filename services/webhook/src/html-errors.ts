import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { jsonError, prefersJson } from "#http/error-pages.ts";
import { fallbackStyles, sendError } from "#http/error-reply.ts";

/**
 * The receiver speaks JSON to Prismic, but a person may open its address in a browser: a client
 * that asks for HTML (and not JSON) gets the built-in error page, everyone else JSON, both without
 * internals. There is no site store here, so the built-in page is the only page.
 */
export function wantsHtml(request: FastifyRequest): boolean {
  const accept = request.headers.accept;
  return accept !== undefined && /\btext\/html\b/i.test(accept) && !prefersJson(accept);
}

/** Installs the not-found handler and the fallback page's stylesheet in the receiver's context. */
export function webhookHtmlErrors(app: FastifyInstance): void {
  fallbackStyles(app);
  app.setNotFoundHandler((request, reply) => {
    if (wantsHtml(request)) return sendError(request, reply, { status: 404 });
    return reply
      .code(404)
      .header("x-request-id", String(request.id))
      .send(jsonError(404, String(request.id)));
  });
}

/** A 5xx for a browser: the built-in page with the request id; the cause only in the log. */
export function htmlServerError(request: FastifyRequest, reply: FastifyReply, error: unknown) {
  return sendError(request, reply, { status: 500, error });
}
