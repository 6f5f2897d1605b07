import { Gauge } from "prom-client";
import { registry } from "./registry.ts";

/** What the edge still owes, read from Redis at each scrape (absent while Redis does not answer). */
export interface EdgeOwed {
  /** Routes awaiting a purge (`*`, everything, counts as one). */
  count: number;
  /** When the oldest started waiting (epoch ms). */
  since: number | undefined;
}

const COLLECT_TIMEOUT_MS = 1000;
const readers = new Set<() => Promise<EdgeOwed>>();

async function read(): Promise<EdgeOwed | undefined> {
  const [reader] = readers;
  if (!reader) return undefined;
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    reader(),
    new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), COLLECT_TIMEOUT_MS);
    }),
  ])
    .catch(() => undefined)
    .finally(() => clearTimeout(timer));
}

new Gauge({
  name: "pressroom_edge_pending_routes",
  help: "Routes written whose edge purge has not been acknowledged yet (retried with backoff and by reconcile; `*`, everything, counts one).",
  registers: [registry],
  async collect() {
    this.reset();
    const owed = await read();
    if (owed) this.set(owed.count);
  },
});

new Gauge({
  name: "pressroom_edge_pending_oldest_seconds",
  help: "How long the oldest route awaiting an edge purge has waited (0 when none waits).",
  registers: [registry],
  async collect() {
    this.reset();
    const owed = await read();
    if (owed) this.set(owed.since === undefined ? 0 : Math.max(0, Date.now() - owed.since) / 1000);
  },
});

/** Reports what the edge owes at each scrape until the returned function is called. */
export function watchEdgeOwed(reader: () => Promise<EdgeOwed>): () => void {
  readers.add(reader);
  return () => {
    readers.delete(reader);
  };
}
