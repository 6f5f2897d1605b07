import type { Redis } from "ioredis";
import { Gauge } from "prom-client";
import { readUndelivered } from "../contact/undelivered.ts";
import { CONTACT_QUEUE_NAME } from "../jobs/catalog.ts";
import { withTimeout } from "./queue-metrics.ts";
import { registry } from "./registry.ts";
import { scrapeReads } from "./scrape-reads.ts";

/** The undelivered lists of every worker process's Redis and queue prefix, read once per scrape. */
const undelivered = scrapeReads(({ redis, prefix }: { redis: Redis; prefix: string }) =>
  readUndelivered(redis, prefix),
);

export const contactUndelivered = new Gauge({
  name: "pressroom_contact_undelivered_messages",
  help: "Contact messages whose delivery failed and that are not delivered since, by state: retrying (attempts left) or given_up (a person must act). Read from Redis at each scrape.",
  labelNames: ["state"] as const,
  registers: [registry],
  async collect() {
    this.reset();
    const lists = await undelivered.readAll().catch(() => undefined);
    if (!lists) return;
    const all = lists.flat();
    this.set({ state: "retrying" }, all.filter((m) => !m.givenUp).length);
    this.set({ state: "given_up" }, all.filter((m) => m.givenUp).length);
  },
});

export const contactOldestUndelivered = new Gauge({
  name: "pressroom_contact_oldest_undelivered_seconds",
  help: "Age of the oldest contact message not delivered (0 when none): how long a visitor has been waiting for an answer.",
  registers: [registry],
  async collect() {
    this.reset();
    const lists = await undelivered.readAll().catch(() => undefined);
    if (!lists) return;
    let oldest = Number.POSITIVE_INFINITY;
    for (const message of lists.flat()) {
      const at = Date.parse(message.receivedAt);
      if (at < oldest) oldest = at;
    }
    this.set(Number.isFinite(oldest) ? Math.max(0, Date.now() - oldest) / 1000 : 0);
  },
});

/** Reports the undelivered contact messages under `prefix` at each scrape until the returned function is called. */
export function watchContactDelivery(redis: Redis, prefix: string): () => void {
  return undelivered.watch({ redis, prefix });
}

/** The site servers' contact queues of this process (one per site app), pinged at each scrape. */
const queues = new Set<() => Promise<void>>();

/**
 * Labelled (queue: the contact queue's name) so that a process without a site server (a worker, the
 * webhook receiver) exports no sample at all rather than a 0 that would read as "down".
 */
export const contactQueueUp = new Gauge({
  name: "pressroom_contact_queue_up",
  help: "1 when the site server's contact queue (Redis) answers, 0 when it does not: the contact form answers 503 while pages are served and readiness stays ready (degraded). Checked at each scrape; site servers only.",
  labelNames: ["queue"] as const,
  registers: [registry],
  async collect() {
    this.reset();
    if (queues.size === 0) return;
    const answers = [...queues].map((ping) =>
      withTimeout(ping()).then(
        () => 1,
        () => 0,
      ),
    );
    this.set({ queue: CONTACT_QUEUE_NAME }, Math.min(...(await Promise.all(answers))));
  },
});

/** Reports whether `ping` (a contact queue's) answers, at each scrape, until the returned function is called. */
export function watchContactQueue(ping: () => Promise<void>): () => void {
  queues.add(ping);
  return () => {
    queues.delete(ping);
  };
}
