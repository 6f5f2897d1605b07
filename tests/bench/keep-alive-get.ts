import { type Agent, request } from "node:http";

export interface Answer {
  status: number;
  /** The response's Content-Encoding, if any. */
  encoding: string | undefined;
  /** The body's bytes as sent (still compressed, if they were). */
  body: Buffer;
  /** From the request sent to the last byte received. */
  ms: number;
}

/** One GET over `agent` (a keep-alive agent: the benchmarks poll as a visitor's browser would). */
export function keepAliveGet(
  agent: Agent,
  url: string,
  headers: Record<string, string> = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const sent = performance.now();
    const req = request(url, { agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          encoding: res.headers["content-encoding"],
          body: Buffer.concat(chunks),
          ms: performance.now() - sent,
        }),
      );
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}
