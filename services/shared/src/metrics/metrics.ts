import { Counter, Gauge, Histogram } from "prom-client";
import { registry } from "./registry.ts";

/**
 * Every metric Pressroom exports, in one place (docs/operations.md says what each means and which
 * alerts to set). Names follow Prometheus' conventions: `_total` counters, `_seconds` histograms.
 */

/** Latencies from milliseconds (one page) to ten minutes (a full rebuild of a large site). */
const PUBLISH_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600];

export const webhookDeliveries = new Counter({
  name: "pressroom_webhook_deliveries_total",
  help: "Webhook deliveries by outcome: accepted, duplicate, test, ignored, unauthorized, forbidden, invalid, unavailable (503), error.",
  labelNames: ["outcome"] as const,
  registers: [registry],
});

export const publishDuration = new Histogram({
  name: "pressroom_publish_duration_seconds",
  help: "Duration of one publish (take ids, plan, render, write, commit), by mode: incremental or diff-build.",
  labelNames: ["mode"] as const,
  buckets: PUBLISH_BUCKETS,
  registers: [registry],
});

export const publishToLive = new Histogram({
  name: "pressroom_publish_to_live_seconds",
  help: "From a webhook delivery accepted (200) to the last route of its changed documents written to storage.",
  buckets: PUBLISH_BUCKETS,
  registers: [registry],
});

export const publishedRoutes = new Counter({
  name: "pressroom_routes_total",
  help: "Routes handled by publishes and builds: rendered, written (bytes changed), unchanged, deleted.",
  labelNames: ["outcome"] as const,
  registers: [registry],
});

export const renderDuration = new Histogram({
  name: "pressroom_render_duration_seconds",
  help: "Time to render one route to HTML (publishes and their child jobs, and the preview server).",
  labelNames: ["process"] as const,
  buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
  registers: [registry],
});

export const contentRequests = new Counter({
  name: "pressroom_content_api_requests_total",
  help: "Requests to the content API (cache misses) by HTTP status; `error` when no answer came (timeout, refused).",
  labelNames: ["status"] as const,
  registers: [registry],
});

/** When the content API last asked this process to wait until (epoch ms; 0: never). */
let contentApiWaitUntil = 0;

/**
 * The content API's latest word: a 429 asked to wait until `until` (epoch ms), and the gauge below
 * counts down to it; 0 when it answered a request since (metered-fetch.ts).
 */
export function noteContentApiWait(until: number): void {
  contentApiWaitUntil = until;
}

export const contentApiWait = new Gauge({
  name: "pressroom_content_api_wait_seconds",
  help: "Seconds left until the time a 429 of the content API asked this process to wait until (0: no wait). Above PRISMIC_RATE_LIMIT_MAX_WAIT_MS, publishes fail and retry at that time instead of sleeping on the lock.",
  registers: [registry],
  collect() {
    this.set(Math.max(0, (contentApiWaitUntil - Date.now()) / 1000));
  },
});

export const storageOperations = new Counter({
  name: "pressroom_storage_operations_total",
  help: "Storage operations by kind: put, get, head, delete, list.",
  labelNames: ["operation"] as const,
  registers: [registry],
});

export const storageErrors = new Counter({
  name: "pressroom_storage_errors_total",
  help: "Failed storage operations by kind and error: retryable (5xx, timeouts), permanent, or unsafe-key.",
  labelNames: ["operation", "error"] as const,
  registers: [registry],
});

export const reconcileRuns = new Counter({
  name: "pressroom_reconcile_runs_total",
  help: "Reconcile rounds by what they did: none, publish (ids left pending), diff-build (a lost webhook, a deploy), failed.",
  labelNames: ["action"] as const,
  registers: [registry],
});

export const contactMessages = new Counter({
  name: "pressroom_contact_messages_total",
  help: "Contact message deliveries: sent, retry (an attempt failed; it will be tried again), failed (no attempts left).",
  labelNames: ["outcome"] as const,
  registers: [registry],
});

export const deliveriesWithoutDocuments = new Counter({
  name: "pressroom_deliveries_without_documents_total",
  help: "Master refs announced by webhook deliveries that named no document, as publishes took them: diff-build (every route published at once at the master ref) or covered (a diff build already covered the ref).",
  labelNames: ["action"] as const,
  registers: [registry],
});

export const failedRoutes = new Counter({
  name: "pressroom_route_failures_total",
  help: "Routes whose render threw during a publish: the last good page stays, the route is listed by `pressroom status` and retried when its document changes.",
  registers: [registry],
});

export const contentNotices = new Counter({
  name: "pressroom_content_notices_total",
  help: "What builds and publishes found editors should fix, once per document read, by kind: fallback (a field the page needs is empty or absent, shown with a fallback), unknown-slice, unknown-variation (left out), converted (a value of another kind than its field's model, converted or shown empty). Listed by `pressroom status`.",
  labelNames: ["kind"] as const,
  registers: [registry],
});

/** Observes one route's render time, from `performance.now()` at its start. */
export function observeRender(process: "worker" | "preview", since: number): void {
  observeRenderMs(process, performance.now() - since);
}

/** Observes one route's render time measured elsewhere (on a render thread), in milliseconds. */
export function observeRenderMs(process: "worker" | "preview", ms: number): void {
  renderDuration.observe({ process }, ms / 1000);
}

export const edgePurges = new Counter({
  name: "pressroom_edge_purges_total",
  help: "Edge purges (CDN_PURGE_URL) by outcome — acknowledged, failed (retried with backoff), deferred (the edge still owed earlier purges: left to the purge job) — and scope: routes or everything.",
  labelNames: ["outcome", "scope"] as const,
  registers: [registry],
});

export const edgePurgedRoutes = new Counter({
  name: "pressroom_edge_purged_routes_total",
  help: "Routes whose edge copies an acknowledged purge removed (a site-wide purge counts none).",
  registers: [registry],
});
