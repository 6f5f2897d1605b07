import { withTimeout } from "./queue-metrics.ts";

/**
 * What several gauges read from Redis at each scrape, for every watched source (one per process that
 * registered: a worker, a site app), read once per scrape however many gauges ask: prom-client
 * collects each gauge on its own, at the same moment.
 */
export function scrapeReads<W, T>(read: (source: W) => Promise<T>) {
  const watched = new Set<W>();
  let reading: Promise<T[]> | undefined;
  return {
    /** Reads every watched source (each within the scrape's timeout); shared by concurrent callers. */
    readAll(): Promise<T[]> {
      reading ??= Promise.all([...watched].map((source) => withTimeout(read(source)))).finally(() => {
        reading = undefined;
      });
      return reading;
    },
    /** Watches `source` until the returned function is called. */
    watch(source: W): () => void {
      watched.add(source);
      return () => {
        watched.delete(source);
      };
    },
  };
}
