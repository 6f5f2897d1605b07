import { Agent } from "node:http";
import { keepAliveGet } from "./keep-alive-get.ts";

/**
 * Polls a page as a visitor would until it is served with `marker` in its body: one GET every
 * `intervalMs` (a poll that takes longer is followed at once by the next), over one keep-alive
 * connection, without Accept-Encoding (both servers then send the bytes as stored). The clock is the
 * caller's: `from` is the `performance.now()` at which the edit's webhook was sent.
 */
export interface FreshPoller {
  untilFresh(
    url: string,
    marker: string,
    from: number,
  ): Promise<{ ms: number; polls: number; lastPollMs: number; slowestPollMs: number; bytes: number }>;
  close(): void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function freshPoller({ intervalMs = 5, timeoutMs = 120_000 } = {}): FreshPoller {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const get = async (url: string) => {
    const { status, body } = await keepAliveGet(agent, url);
    return { status, body: body.toString() };
  };
  return {
    async untilFresh(url, marker, from) {
      const deadline = from + timeoutMs;
      let slowestPollMs = 0;
      for (let polls = 1; ; polls++) {
        const sent = performance.now();
        const { status, body } = await get(url);
        slowestPollMs = Math.max(slowestPollMs, performance.now() - sent);
        if (status === 200 && body.includes(marker))
          return {
            slowestPollMs,
            ms: performance.now() - from,
            polls,
            // The request that came back fresh: on Next (revalidatePath), the render it waited for.
            lastPollMs: performance.now() - sent,
            bytes: Buffer.byteLength(body),
          };
        if (performance.now() > deadline)
          throw new Error(`${url} never showed "${marker}" within ${timeoutMs} ms (last status ${status})`);
        await sleep(Math.max(0, sent + intervalMs - performance.now()));
      }
    },
    close: () => agent.destroy(),
  };
}
