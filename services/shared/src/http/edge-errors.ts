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
 * Fastify options for the two answers Fastify writes itself, before any hook of ours runs: a URL
 * it cannot decode (`GET /%`, 400, whose default body echoes the URL) and what Node's HTTP parser
 * refuses (431 headers too large, 400 malformed, 408 timeout), written straight to the socket.
 * Both get the server's security headers and a body that echoes nothing the client sent.
 * The HTML error pages (issue 13) may replace the bodies; the headers must stay.
 */
export function edgeErrorOptions(headers: Record<string, string>) {
  return {
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
