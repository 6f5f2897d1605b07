import type { FastifyInstance, FastifyRequest } from "fastify";
import { webhookDeliveries } from "#metrics/metrics.ts";

const queued = new WeakMap<FastifyRequest, "accepted" | "duplicate">();

/**
 * The delivery was queued: `duplicate` when its job was already in Redis (Prismic retrying, or two at
 * once). Its answer is a 200 like a test trigger's, so the outcome is recorded here, not read from it.
 */
export function markQueued(request: FastifyRequest, duplicate: boolean): void {
  queued.set(request, duplicate ? "duplicate" : "accepted");
}

/** Counts each delivery by what it became, from its answer (`pressroom_webhook_deliveries_total`). */
export function countDeliveries(app: FastifyInstance, path: string): void {
  app.addHook("onResponse", async (request, reply) => {
    if (request.routeOptions.url !== path) return;
    webhookDeliveries.inc({ outcome: outcomeOf(reply.statusCode, request) });
  });
}

function outcomeOf(status: number, request: FastifyRequest): string {
  switch (status) {
    case 200:
      return (
        queued.get(request) ??
        ((request.body as { type?: unknown } | undefined)?.type === "test-trigger" ? "test" : "ignored")
      );
    case 401:
      return "unauthorized";
    case 403:
      return "forbidden";
    case 503:
      return "unavailable";
    default:
      return status >= 400 && status < 500 ? "invalid" : "error";
  }
}
