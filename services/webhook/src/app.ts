import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { healthRoutes } from "#ops/health-routes.ts";
import { WarnLimiter } from "#warn-limiter";
import { countDeliveries, markQueued } from "./delivery-metrics.ts";
import { type PublishEnqueuer, type PublishPayload, QueueUnavailableError } from "./enqueue.ts";
import { htmlServerError, wantsHtml, webhookHtmlErrors } from "./html-errors.ts";

export interface WebhookAppOptions {
  /** The shared secret configured on the Prismic webhook (WEBHOOK_SECRET). */
  secret: string;
  /** The Prismic repository name; deliveries for another `domain` are refused. */
  repository: string;
  enqueue: PublishEnqueuer;
  /** Repeated warnings of one kind are written at most once per this many ms (default 60 s). */
  warnIntervalMs?: number;
}

/**
 * Prismic refs and document ids are short URL-safe tokens (`ZxQ7IxEAACQA9ZdM`). A ref becomes part
 * of a BullMQ job id (`publish:<ref>`, where `:` is refused) and ids become Redis set members, so
 * anything else is refused with a 400 before it reaches Redis.
 */
export const PRISMIC_TOKEN = "^[A-Za-z0-9_-]{1,64}$";

/** Prismic's bodies are a few KiB; a larger one is not Prismic. */
export const BODY_LIMIT = 256 * 1024;
/** Seconds a client should wait after a 503 (Prismic itself redelivers on its own schedule). */
const RETRY_AFTER_SECONDS = 10;

/**
 * Ajv options the host server must use (see server.ts). Fastify coerces types by default, which
 * would turn `documents: "id"` into `["id"]` and `secret: 123` into `"123"`; a webhook should
 * refuse what Prismic never sends instead.
 */
export const WEBHOOK_AJV_OPTIONS = { customOptions: { coerceTypes: false } } as const;

/** Pino paths that hide the body's secret, wherever a request body could end up in a log line. */
export const WEBHOOK_REDACT_PATHS = [
  "body.secret",
  "req.body.secret",
  "request.body.secret",
  "payload.secret",
];

const changeSet = {
  type: "object",
  properties: {
    addition: { type: "array" },
    update: { type: "array" },
    deletion: { type: "array" },
  },
} as const;

const releaseList = {
  type: "array",
  items: {
    type: "object",
    properties: { documents: { type: "array", items: { type: "string", pattern: PRISMIC_TOKEN } } },
  },
} as const;

/** Prismic's body (https://prismic.io/docs/webhooks); unknown fields pass because Prismic adds some. */
const bodySchema = {
  type: "object",
  required: ["type"],
  properties: {
    type: { type: "string", enum: ["api-update", "test-trigger"] },
    secret: { type: ["string", "null"] },
    domain: { type: "string" },
    apiUrl: { type: "string" },
    masterRef: { type: "string", pattern: PRISMIC_TOKEN },
    documents: { type: "array", items: { type: "string", pattern: PRISMIC_TOKEN } },
    releases: {
      type: "object",
      properties: { addition: releaseList, update: releaseList, deletion: releaseList },
    },
    masks: changeSet,
    tags: changeSet,
    experiments: { type: "object" },
  },
} as const;

interface ReleaseChange {
  documents?: string[];
}

interface WebhookBody {
  type: "api-update" | "test-trigger";
  secret?: string | null;
  domain?: string;
  masterRef?: string;
  documents?: string[];
  releases?: { addition?: ReleaseChange[]; update?: ReleaseChange[]; deletion?: ReleaseChange[] };
}

/** The job payload schema's limit; more ids than this cannot be one job. */
const MAX_DOCUMENTS = 10_000;

export const WEBHOOK_PATH = "/webhooks/prismic";

/** `POST /webhooks/prismic` and `GET /_pressroom/healthz|readyz`. Register it encapsulated: it sets its own error handler. */
export async function webhookApp(app: FastifyInstance, options: WebhookAppOptions): Promise<void> {
  const expectedDigest = digest(options.secret);
  const warnings = new WarnLimiter(options.warnIntervalMs);
  /** Warns once per kind and interval; the request's own info line records every occurrence. */
  const warnLimited = (request: FastifyRequest, kind: string, fields: Record<string, unknown>) => {
    const taken = warnings.take(kind);
    if (taken) request.log.warn({ ...fields, suppressedSinceLast: taken.suppressed }, kind);
  };

  // One info line per request (server.ts turns Fastify's two off): what happened, with the status.
  app.addHook("onResponse", async (request, reply) => {
    const { message, fields } = outcomes.get(request) ?? { message: "request answered", fields: {} };
    request.log.info(
      {
        ...fields,
        method: request.method,
        path: request.url.split("?")[0]?.slice(0, 200),
        statusCode: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
      },
      message,
    );
  });
  // Fastify also parses text/plain by default; Prismic sends JSON, so anything else is a 415.
  app.removeContentTypeParser("text/plain");
  webhookHtmlErrors(app);

  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof QueueUnavailableError) {
      outcome(request, { reason: error.message }, "delivery not queued: redis unavailable");
      warnLimited(request, "delivery not queued: redis unavailable", { reason: error.message });
      return unavailable(reply);
    }
    if (error.validation) {
      const field = invalidField(error);
      const message = describeValidation(error, request.body);
      outcome(request, { field, code: error.code }, "delivery refused: invalid body");
      return reply.code(400).send({ error: "invalid_body", field, message });
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      // Fastify's own client errors (bad JSON, body too large, wrong content type). Their messages
      // are fixed strings, never the body, so no secret can leak through them.
      outcome(request, { code: error.code }, "delivery refused");
      return reply.code(status).send({ error: clientErrorName(error.code, status), message: error.message });
    }
    if (wantsHtml(request)) return htmlServerError(request, reply, error);
    request.log.error({ err: error }, "webhook handler failed");
    return reply.code(500).send({ error: "internal_error", message: "the receiver failed; see its log" });
  });

  healthRoutes(app, { redis: () => options.enqueue.ping() });
  countDeliveries(app, WEBHOOK_PATH);

  app.post<{ Body: WebhookBody }>(
    WEBHOOK_PATH,
    { bodyLimit: BODY_LIMIT, schema: { body: bodySchema } },
    async (request, reply) => {
      const body = request.body;
      if (!secretMatches(body.secret, expectedDigest)) {
        outcome(request, { type: body.type }, "delivery refused: invalid secret");
        warnLimited(request, "delivery refused: invalid secret", { type: body.type });
        return reply.code(401).send({ error: "invalid_secret", message: "the secret does not match" });
      }
      if (body.domain !== options.repository) {
        // The expected repository is not named: an outsider learns nothing about this receiver.
        const domain = String(body.domain).slice(0, 100);
        outcome(request, { domain }, "delivery refused: domain mismatch");
        warnLimited(request, "delivery refused: domain mismatch", { domain });
        return reply
          .code(403)
          .send({ error: "domain_mismatch", message: "domain does not match this receiver's repository" });
      }
      if (body.type === "test-trigger") {
        outcome(request, {}, "test trigger received");
        return reply.code(200).send({ ok: true });
      }

      const documents = changedIds(body);
      if (body.masterRef === undefined && documents.length === 0) {
        // A tag or mask change: nothing on the site changed.
        outcome(request, {}, "api-update with nothing to publish");
        return reply.code(200).send({ ok: true, queued: false });
      }
      if (documents.length > MAX_DOCUMENTS) {
        outcome(request, { documents: documents.length }, "delivery refused: too many documents");
        return reply.code(413).send({
          error: "too_many_documents",
          message: `${documents.length} changed documents; one delivery may carry at most ${MAX_DOCUMENTS}`,
        });
      }
      // A new master ref that names no document (Prismic's recorded 2020 body): something changed
      // and nothing says what, so the worker publishes every route at that ref. Ids listed only
      // inside `releases` are not master changes: they do not name what changed there.
      const namesNoDocuments = body.masterRef !== undefined && (body.documents ?? []).length === 0;
      const payload: PublishPayload = {
        masterRef: body.masterRef ?? null,
        documents,
        receivedAt: new Date().toISOString(),
        ...(namesNoDocuments ? { namesNoDocuments } : {}),
      };
      const { jobId, duplicate } = await options.enqueue.enqueue(payload);
      markQueued(request, duplicate === true);
      outcome(
        request,
        {
          jobId,
          masterRef: payload.masterRef,
          documents: documents.length,
          ...(namesNoDocuments ? { namesNoDocuments } : {}),
        },
        namesNoDocuments
          ? "publish queued: a new master ref naming no document (every route)"
          : "publish queued",
      );
      // 200, not 202: Prismic retries any other answer every 10 minutes and disables a webhook that
      // fails 5 times in a row (https://prismic.io/docs/webhooks). Accepted means durably in Redis.
      return reply.code(200).send({ jobId });
    },
  );
}

const outcomes = new WeakMap<FastifyRequest, { message: string; fields: Record<string, unknown> }>();
/** What the request's one info line says (written when the response is sent). */
function outcome(request: FastifyRequest, fields: Record<string, unknown>, message: string): void {
  outcomes.set(request, { message, fields });
}

/**
 * The top-level ids plus every id inside `releases.{addition,update,deletion}[].documents`. The site
 * publishes no release, but an id listed only there still changed (e.g. a release was published
 * into master and Prismic listed its documents under the release), and dropping it would leave a
 * stale page until the next reconcile. Rendering an unchanged document is harmless; missing one is not.
 */
export function changedIds(body: Pick<WebhookBody, "documents" | "releases">): string[] {
  const ids = new Set(body.documents ?? []);
  for (const kind of ["addition", "update", "deletion"] as const) {
    for (const release of body.releases?.[kind] ?? []) {
      for (const id of release.documents ?? []) ids.add(id);
    }
  }
  return [...ids];
}

function digest(value: string): Buffer {
  return createHash("sha256").update(value, "utf8").digest();
}

/** Constant time over fixed-length digests, so neither the content nor the length of the secret leaks. */
function secretMatches(given: string | null | undefined, expectedDigest: Buffer): boolean {
  if (typeof given !== "string") return false;
  return timingSafeEqual(digest(given), expectedDigest);
}

function unavailable(reply: FastifyReply): FastifyReply {
  return reply
    .code(503)
    .header("retry-after", String(RETRY_AFTER_SECONDS))
    .send({ error: "queue_unavailable", message: "the queue is unavailable; deliver again later" });
}

/** `body.documents`, `body.releases.update.0.documents`; for a missing property, that property. */
function invalidField(error: FastifyError): string {
  const first = error.validation?.[0];
  const missing =
    first?.keyword === "required"
      ? (first.params as { missingProperty?: unknown }).missingProperty
      : undefined;
  const path = `${first?.instancePath ?? ""}${typeof missing === "string" ? `/${missing}` : ""}`;
  return `body${path}`.replaceAll("/", ".");
}

/** Names the field and, for `type`, the value that was refused (never any other value: it could be the secret). */
function describeValidation(error: FastifyError, body: unknown): string {
  const first = error.validation?.[0];
  if (first?.instancePath === "/type" && first.keyword === "enum") {
    const got = JSON.stringify((body as { type?: unknown } | null)?.type)?.slice(0, 100);
    return `body.type must be "api-update" or "test-trigger", got ${got}`;
  }
  return error.message.replace(/^body\//, "body.").replaceAll("/", ".");
}

function clientErrorName(code: string | undefined, status: number): string {
  switch (code) {
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return "body_too_large";
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return "unsupported_media_type";
    case "FST_ERR_CTP_INVALID_JSON_BODY":
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return "invalid_json";
    default:
      return status === 404 ? "not_found" : "bad_request";
  }
}
