import type { Redis } from "ioredis";
import { Gauge } from "prom-client";
import { registry } from "#metrics/registry.ts";
import { scrapeReads } from "#metrics/scrape-reads.ts";
import { readPublishingHealth } from "../publishing-health.ts";

/** Publishing under every worker process's Redis and queue prefix, read once per scrape. */
const publishing = scrapeReads(
  ({ redis, prefix, stallMs }: { redis: Redis; prefix: string; stallMs: number | undefined }) =>
    readPublishingHealth(redis, prefix, stallMs),
);

export const publishWaiting = new Gauge({
  name: "pressroom_publish_waiting_seconds",
  help: "Age of the oldest webhook delivery not yet live (0 when none waits). Read from Redis at each scrape.",
  registers: [registry],
  async collect() {
    this.reset();
    const all = await publishing.readAll().catch(() => undefined);
    if (!all) return;
    const since = Math.min(...all.map((h) => h.waitingSince ?? Number.POSITIVE_INFINITY));
    this.set(Number.isFinite(since) ? Math.max(0, Date.now() - since) / 1000 : 0);
  },
});

export const publishStalled = new Gauge({
  name: "pressroom_publish_stalled",
  help: "1 when deliveries have waited longer than the stall time and no publish completed meanwhile (a full disk, a full Redis, a publish failing at every attempt): `pressroom status` names the last failure.",
  registers: [registry],
  async collect() {
    this.reset();
    const all = await publishing.readAll().catch(() => undefined);
    if (!all) return;
    this.set(all.some((h) => h.stalled) ? 1 : 0);
  },
});

/** Reports publishing under `prefix` at each scrape until the returned function is called. */
export function watchPublishing(redis: Redis, prefix: string, stallMs?: number): () => void {
  return publishing.watch({ redis, prefix, stallMs });
}
