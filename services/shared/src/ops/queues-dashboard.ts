import { createHash, timingSafeEqual } from "node:crypto";
import { createBullBoard } from "@bull-board/api";
import { BullMQAdapter } from "@bull-board/api/bullMQAdapter";
import { FastifyAdapter } from "@bull-board/fastify";
import type { Queue } from "bullmq";
import type { FastifyInstance } from "fastify";
import type { QueuesDashboardConfig } from "../config/index.ts";
import { OPS_PREFIX } from "./health-routes.ts";

export const QUEUES_PATH = `${OPS_PREFIX}/queues`;

/**
 * Bull Board at `/_pressroom/queues`, behind HTTP basic authentication. It can retry and remove
 * jobs, so it is registered only when a password is configured, and only on the ops listener.
 */
export async function queuesDashboard(
  app: FastifyInstance,
  options: { queues: readonly Queue[]; auth: QueuesDashboardConfig },
): Promise<void> {
  const adapter = new FastifyAdapter();
  adapter.setBasePath(QUEUES_PATH);
  createBullBoard({
    queues: options.queues.map((queue) => new BullMQAdapter(queue)),
    serverAdapter: adapter,
  });
  const expected = digest(`${options.auth.user}:${options.auth.password}`);
  await app.register(async (scope) => {
    scope.addHook("onRequest", async (request, reply) => {
      if (credentialsMatch(request.headers.authorization, expected)) return;
      // A browser asks without credentials first, for every resource: only wrong ones are worth a warning.
      if (request.headers.authorization)
        request.log.warn({ url: request.url }, "queue dashboard: wrong credentials");
      return reply
        .code(401)
        .header("www-authenticate", 'Basic realm="pressroom queues", charset="UTF-8"')
        .header("cache-control", "no-store")
        .send({
          error: "unauthorized",
          message: "the queue dashboard needs QUEUES_USER and QUEUES_PASSWORD",
        });
    });
    await scope.register(adapter.registerPlugin(), { prefix: QUEUES_PATH });
  });
}

function digest(value: string): Buffer {
  return createHash("sha256").update(value, "utf8").digest();
}

/** Constant time over digests: neither the password nor its length leaks through timing. */
function credentialsMatch(header: string | undefined, expected: Buffer): boolean {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? "");
  if (!match?.[1]) return false;
  return timingSafeEqual(digest(Buffer.from(match[1], "base64").toString("utf8")), expected);
}
