import type { Redis } from "ioredis";
import { Gauge } from "prom-client";
import { withTimeout } from "#metrics/queue-metrics.ts";
import { registry } from "#metrics/registry.ts";
import { type PublishingHealth, readPublishingHealth } from "../publishing-health.ts";

/** The connections and prefixes whose publishing is reported (one per worker process). */
const watched = new Set<{ redis: Redis; prefix: string; stallMs: number | undefined }>();

/** Read once per scrape for both gauges (prom-client collects each gauge on its own). */
let reading: Promise<PublishingHealth[]> | undefined;
function readAll(): Promise<PublishingHealth[]> {
  reading ??= Promise.all(
    [...watched].map(({ redis, prefix, stallMs }) =>
      withTimeout(readPublishingHealth(redis, prefix, stallMs)),
    ),
  ).finally(() => {
    reading = undefined;
  });
  return reading;
}

export const publishWaiting = new Gauge({
  name: "pressroom_publish_waiting_seconds",
  help: "Age of the oldest webhook delivery not yet live (0 when none waits). Read from Redis at each scrape.",
  registers: [registry],
  async collect() {
    this.reset();
    const all = await readAll().catch(() => undefined);
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
    const all = await readAll().catch(() => undefined);
    if (!all) return;
    this.set(all.some((h) => h.stalled) ? 1 : 0);
  },
});

/** Reports publishing under `prefix` at each scrape until the returned function is called. */
export function watchPublishing(redis: Redis, prefix: string, stallMs?: number): () => void {
  const entry = { redis, prefix, stallMs };
  watched.add(entry);
  return () => watched.delete(entry);
}
