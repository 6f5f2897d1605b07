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
 * route and no content can take (`_pressroom`, the servers' own prefix, is among a website's
 * `routes.reserved`), so the server answers it exactly as any path that names no page.
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
 * Fastify options for the two answers Fastify writes itself, before any hook of ours runs: a URL it
 * cannot decode (`GET /%`, whose default body echoes the URL) and what Node's HTTP parser refuses
 * (431, 400, 408). Both get the server's security headers and a body that echoes nothing sent.
 *
 * `pages` (site, preview): the site spec says "A route that fails validation shows the same 404", so
 * a malformed path is routed as MALFORMED_URL_PATH and answered as any unmatched path (404 page, or
 * JSON for a JSON client): to a visitor it names no page, and a 404 is what a CDN serves for a path
 * it holds nothing for. Without `pages` (the webhook receiver) it stays a JSON 400.
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
