import type { FastifyReply, FastifyRequest } from "fastify";

/**
 * `uri-host [ ":" port ]` (RFC 9110 §7.2, RFC 3986 §3.2.2): a bracketed IP literal, or a reg-name
 * (which covers IPv4 and may be empty) of unreserved characters, sub-delims and %XX escapes; the
 * port digits only. A space, `/`, `@`, `?` or `#` can never be part of it.
 */
const HOST_VALUE =
  /^(?:\[[0-9A-Za-z._~!$&'()*+,;=:-]+\]|(?:[A-Za-z0-9._~!$&'()*+,;=-]|%[0-9A-Fa-f]{2})*)(?::[0-9]*)?$/;

/**
 * Why a request's Host header makes it one the server must refuse with 400 (RFC 9112 §3.2): more
 * than one Host line, or a value that is not a host; undefined when it is acceptable. Read from
 * the raw header lines: Node's parser keeps the first of two Host lines in `headers.host` and drops
 * the other, so a request that one hop reads as for one host and another hop for another would
 * otherwise be answered. (A missing Host on HTTP/1.1 Node's server refuses itself.)
 */
export function hostHeaderProblem(rawHeaders: readonly string[]): string | undefined {
  const values: string[] = [];
  for (let i = 0; i < rawHeaders.length; i += 2)
    if ((rawHeaders[i] as string).toLowerCase() === "host") values.push(rawHeaders[i + 1] ?? "");
  if (values.length > 1) return "more than one Host header";
  if (values.length === 1 && !HOST_VALUE.test(values[0] as string)) return "an invalid Host header";
  return undefined;
}

/**
 * An `onRequest` hook for the root instance of every server that faces the network: a request whose
 * Host is repeated or invalid gets 400 and the connection is closed, before any route, body parser
 * or plugin sees it. The answer is the one Node's parser refusals get (edge-errors.ts): `headers`
 * (the server's security headers), `no-store`, a JSON body that echoes nothing the client sent.
 */
export function refuseInvalidHost(headers: Record<string, string>) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const problem = hostHeaderProblem(request.raw.rawHeaders);
    if (problem === undefined) return;
    request.log.info({ problem }, "request refused: Host");
    return reply
      .code(400)
      .headers(headers)
      .header("cache-control", "no-store")
      .header("connection", "close")
      .type("application/json; charset=utf-8")
      .send({ error: "Bad Request", statusCode: 400 });
  };
}
