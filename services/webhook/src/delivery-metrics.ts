import type { FastifyInstance, FastifyRequest } from "fastify";
import { webhookDeliveries } from "#metrics/metrics.ts";

const duplicates = new WeakSet<FastifyRequest>();

/** The delivery was a redelivery of a job already in Redis (Prismic retrying, or two at once). */
export function markDuplicate(request: FastifyRequest): void {
  duplicates.add(request);
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
    case 202:
      return duplicates.has(request) ? "duplicate" : "accepted";
    case 200:
      return (request.body as { type?: unknown } | undefined)?.type === "test-trigger" ? "test" : "ignored";
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
