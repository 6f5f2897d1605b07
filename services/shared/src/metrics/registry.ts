import { collectDefaultMetrics, Registry } from "prom-client";

/**
 * The process's one metrics registry. Metrics are process-wide facts (a counter of storage
 * operations counts every store the process made), so they live here rather than being passed
 * around; only the operations listener reads it (`/_pressroom/metrics`).
 */
export const registry = new Registry();

let defaultsOn = false;

/**
 * Node's own metrics (CPU, memory, event-loop lag, GC), unprefixed so standard dashboards work.
 * Once a process. No role label: Prometheus adds `job` and `instance` from its scrape config, and
 * one process may hold several roles (`pressroom start`, tests).
 */
export function collectProcessMetrics(): void {
  if (defaultsOn) return;
  defaultsOn = true;
  collectDefaultMetrics({ register: registry });
}
