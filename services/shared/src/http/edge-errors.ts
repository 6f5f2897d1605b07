import { STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";

/** Headers for answers that carry no page: nothing may run, nothing may frame them. */
export const BARE_SECURITY_HEADERS: Record<string, string> = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "content-security-policy": "default-src 'none'; frame-ancestors 'none'",
  "x-frame-options": "DENY",
};

/**
 * Where a server that shows pages routes a request whose path cannot be percent-decoded: a path no
 * route and no content can take (`_pressroom` is a reserved uid, web/src/uid-rules.ts), so the
 * server answers it exactly as any path that names no page.
 */
export const MALFORMED_URL_PATH = "/_pressroom/malformed-url";

/**
 * Whether a request path is malformed: a `%` not followed by two hex digits, or escapes that are
 * not UTF-8 (`/%E0%A4%A`, `/price-list/%ZZ`). Fastify's router cannot decode such a path.
 */
export function isMalformedPath(url: string): boolean {
  const path = url.split("?", 1)[0] ?? "";
  if (!path.includes("%")) return false;
  try {
    decodeURIComponent(path);
    return false;
  } catch {
    return true;
  }
}

/**
 * Fastify options for the two answers Fastify writes itself, before any hook of ours runs: a URL
 * it cannot decode (`GET /%`, 400, whose default body echoes the URL) and what Node's HTTP parser
 * refuses (431 headers too large, 400 malformed, 408 timeout), written straight to the socket.
 * Both get the server's security headers and a body that echoes nothing the client sent.
 *
 * `pages`: the server shows pages to visitors (site, preview). The site spec says "A route that
 * fails validation shows the same 404", so a malformed path is routed as MALFORMED_URL_PATH
 * (Fastify's `rewriteUrl`, before its router decodes anything) and gets the same answer as any
 * unmatched path: the site's 404 page with status 404 for a browser, JSON for a JSON client, every
 * header and log line of an ordinary answer. Decision: 404, not 400 with an HTML page: to a
 * visitor the address names no page, like a mistyped one, and a 404 is what the CDN and S3
 * website hosting serve for a path they hold no object for. (The log keeps the original path.)
 * Without `pages` (the webhook receiver, an API) it stays a JSON 400.
 */
export function edgeErrorOptions(headers: Record<string, string>, options: { pages?: boolean } = {}) {
  return {
    ...(options.pages
      ? {
          rewriteUrl(request: { url?: string }): string {
            const url = request.url ?? "/";
            return isMalformedPath(url) ? MALFORMED_URL_PATH : url;
          },
        }
      : {}),
    frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
      request.log.info({ code: error.code }, "request refused by the router");
      const status =
        error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 400;
      return reply
        .code(status)
        .headers(headers)
        .header("cache-control", "no-store")
        .type("application/json; charset=utf-8")
        .send({ error: "bad_request", message: "The request URL is not valid." });
    },
    clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket) {
      if (error.code === "ECONNRESET" || socket.destroyed) return;
      const status =
        error.code === "HPE_HEADER_OVERFLOW" ? 431 : error.code === "ERR_HTTP_REQUEST_TIMEOUT" ? 408 : 400;
      const body = JSON.stringify({ error: STATUS_CODES[status], statusCode: status });
      const lines = [
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
        "Connection: close",
        "Content-Type: application/json; charset=utf-8",
        `Content-Length: ${Buffer.byteLength(body)}`,
        "Cache-Control: no-store",
        ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
      ];
      if (socket.writable) socket.write(`${lines.join("\r\n")}\r\n\r\n${body}`);
      socket.destroy(error);
    },
  };
}
