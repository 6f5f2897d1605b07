import type { FastifyInstance } from "fastify";
import { WarnLimiter } from "../warn-limiter.ts";
import { checkReadiness, type ReadinessChecks } from "./readiness.ts";

/** The prefix no content can take (a uid `_pressroom` is refused), on every server. */
export const OPS_PREFIX = "/_pressroom";

/**
 * `GET /_pressroom/healthz` (the process is alive: it answers) and `GET /_pressroom/readyz` (what
 * it depends on answers: 503 naming what failed, the reason only in the log; 200 `degraded` when
 * only a component it can serve without failed). Cheap and without secrets, so they also live on
 * public ports, for load balancers.
 */
export function healthRoutes(app: FastifyInstance, checks: ReadinessChecks): void {
  // Probes come every few seconds: a component down for an hour is one warning a minute, not 360.
  const warnings = new WarnLimiter();
  app.get(`${OPS_PREFIX}/healthz`, async (_request, reply) =>
    reply.header("cache-control", "no-store").send({ status: "ok" }),
  );
  app.get(`${OPS_PREFIX}/readyz`, async (request, reply) => {
    const readiness = await checkReadiness(checks);
    reply.header("cache-control", "no-store");
    if (readiness.ready && readiness.degraded) {
      const limit = warnings.take("degraded");
      if (limit)
        request.log.warn(
          { checks: readiness.errors, suppressed: limit.suppressed },
          "ready, degraded: a component it can serve without failed",
        );
      return reply.send({ status: "degraded", checks: readiness.checks });
    }
    if (readiness.ready) return reply.send({ status: "ok", checks: readiness.checks });
    const limit = warnings.take("not-ready");
    if (limit) request.log.warn({ checks: readiness.errors, suppressed: limit.suppressed }, "not ready");
    return reply
      .code(503)
      .header("retry-after", "10")
      .send({ status: "unavailable", checks: readiness.checks });
  });
}
