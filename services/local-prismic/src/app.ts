import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { FastifyInstance, FastifyReply } from "fastify";
import { createAnswerCache, createMatchCache } from "./answer-cache.ts";
import { ASSET_BASE_PLACEHOLDER } from "./demo.ts";
import { EditRejectedError } from "./errors.ts";
import type { ModelSource } from "./models.ts";
import { ApiError, searchDocuments } from "./query/index.ts";
import type { ContentStore } from "./store.ts";
import {
  apiUpdateBody,
  deliverWebhook,
  testTriggerBody,
  type WebhookOutcome,
  type WebhookTarget,
} from "./webhook.ts";

export interface ContentAppOptions {
  store: ContentStore;
  /** Read again on the API root and on edits (store.ts), so that a model added while running is served. */
  models: ModelSource;
  repository: string;
  /** The URL other processes reach this service at (known only once it listens). */
  publicUrl: () => string;
  webhook: { url: string; secret: string | undefined } | undefined;
  imagesDir: string;
  /** How the API root looks; tests use it to answer a root as some real repositories do. */
  apiRoot?: ApiRootSwitch;
  /** Bytes of search answers kept at immutable refs (answer-cache.ts); default 128 MiB, 0 keeps none. */
  answerCacheBytes?: number;
}

/**
 * Real API roots differ: some lack a form or a bookmark. `omit` leaves out `forms` entirely or one
 * form (`forms.tags`, `forms.everything`); `bookmarks` names documents (name → id), none by default.
 */
export interface ApiRootSwitch {
  omit?: readonly ("forms" | `forms.${string}`)[];
  bookmarks?: Record<string, string>;
}

const NOT_CONFIGURED: WebhookOutcome = { status: "not-configured" };
const MASTER_LANG = { id: "en-us", name: "English - United States", is_master: true };
const IMAGE_TYPES: Record<string, string> = {
  jpg: "image/jpeg",
  png: "image/png",
  webp: "image/webp",
  svg: "image/svg+xml",
};

/**
 * The local content service: Prismic's Document API v2 over the local
 * repository, plus an edit API that moves content as an editor would.
 */
export async function contentApp(app: FastifyInstance, options: ContentAppOptions): Promise<void> {
  const { store, models } = options;
  const apiBase = () => `${options.publicUrl()}/api/v2`;
  const webhookTarget = (): WebhookTarget | undefined =>
    options.webhook && {
      ...options.webhook,
      repository: options.repository,
      apiUrl: `${options.publicUrl()}/api`,
    };

  const serializeJson = (body: unknown) =>
    JSON.stringify(body).replaceAll(ASSET_BASE_PLACEHOLDER, `${options.publicUrl()}/assets`);
  const sendJson = (reply: FastifyReply, status: number, body: unknown) =>
    reply.code(status).type("application/json; charset=utf-8").send(serializeJson(body));
  const answers = createAnswerCache(options.answerCacheBytes);
  const matches = createMatchCache();

  // Where Prismic's API root points OAuth clients; its security errors (an expired preview token,
  // a wrong access token) name the same two endpoints in their bodies.
  const oauth = () => ({
    oauth_initiate: `${options.publicUrl()}/auth`,
    oauth_token: `${options.publicUrl()}/auth/token`,
  });

  app.setErrorHandler((error, request, reply) => {
    if (error instanceof ApiError) {
      // As Prismic answers an expired preview token (prismic-client commit d098a7f, the recorded body
      // of its PreviewTokenExpiredError test): `type`, `message`, `oauth_initiate`, `oauth_token`.
      const body = error.body.type === "api_security_error" ? { ...error.body, ...oauth() } : error.body;
      return sendJson(reply, error.status, body);
    }
    if (error instanceof EditRejectedError) {
      return sendJson(reply, 422, {
        error: "invalid_document",
        message: error.message,
        issues: error.issues,
      });
    }
    const status = (error as { statusCode?: number }).statusCode ?? 500;
    if (status >= 500) request.log.error({ err: error }, "request failed");
    // Fastify's own 4xx (malformed JSON, body too large) say what was wrong; a 500 says nothing inside.
    const message = status >= 500 ? "Internal error; see the service log" : (error as Error).message;
    return sendJson(reply, status, { error: status >= 500 ? "internal_error" : "bad_request", message });
  });

  app.setNotFoundHandler((request, reply) =>
    sendJson(reply, 404, {
      error: "not_found",
      message: `No route ${request.method} ${request.url.split("?")[0]}`,
    }),
  );

  app.get("/", async (_request, reply) =>
    sendJson(reply, 200, {
      service: "pressroom local content service",
      repository: options.repository,
      masterRef: store.masterRef,
      api: apiBase(),
      endpoints: {
        "GET /api/v2": "repository: refs, types, languages, forms",
        "GET /api/v2/documents/search":
          "Prismic document search (q, page, pageSize, orderings, routes, fetchLinks…)",
        "POST /admin/publish": '{"upsert":[document…],"remove":[id…]} → new master ref, webhook delivered',
        "PUT /admin/drafts/:id": "document → {token}: a preview token showing the draft",
        "DELETE /admin/drafts/:id": "discard a draft",
        "POST /admin/webhook/test": "send a test-trigger webhook",
        "GET /admin/stats": "API requests answered since start (and searches answered from kept bytes)",
      },
    }),
  );

  // How many API requests were answered: benchmarks count what a publish costs the content API.
  const served = { repository: 0, search: 0 };
  /** Of the searches served, those answered with bytes kept from an earlier one (answer-cache.ts). */
  let keptAnswers = 0;
  app.get("/admin/stats", async (_request, reply) =>
    sendJson(reply, 200, { requests: served, keptAnswers, masterRef: store.masterRef }),
  );

  app.get("/api/v2", async (_request, reply) => {
    served.repository++;
    const search = `${apiBase()}/documents/search`;
    const previewRefs = store.previewSessions.map(({ session }) => ({
      id: session,
      ref: `${options.publicUrl()}/previews/${session}?websitePreviewId=${session}`,
      label: `Preview ${session}`,
      isMasterRef: false,
    }));
    const field = (type: string, multiple = false, extra: Record<string, unknown> = {}) => ({
      type,
      multiple,
      ...extra,
    });
    const root = {
      refs: [{ id: "master", ref: store.masterRef, label: "Master", isMasterRef: true }, ...previewRefs],
      integrationFieldsRef: null,
      bookmarks: { ...options.apiRoot?.bookmarks },
      types: Object.fromEntries(models.current().customTypes.map((t) => [t.id, t.label ?? t.id])),
      languages: [MASTER_LANG],
      tags: store.masterTags,
      forms: {
        everything: {
          method: "GET",
          enctype: "application/x-www-form-urlencoded",
          action: search,
          fields: {
            ref: field("String"),
            q: field("String", true),
            lang: field("String"),
            page: field("Integer", false, { default: "1" }),
            pageSize: field("Integer", false, { default: "20" }),
            after: field("String"),
            fetch: field("String"),
            fetchLinks: field("String"),
            graphQuery: field("String"),
            orderings: field("String"),
            referer: field("String"),
            access_token: field("String"),
          },
        },
        tags: {
          method: "GET",
          enctype: "application/x-www-form-urlencoded",
          action: `${apiBase()}/tags`,
          fields: { access_token: field("String") },
        },
      } as Record<string, unknown>,
      ...oauth(),
      version: "pressroom-local",
      license: "All Rights Reserved",
      experiments: { draft: [], running: [] },
    };
    for (const path of options.apiRoot?.omit ?? []) {
      if (path === "forms") delete (root as { forms?: unknown }).forms;
      else delete root.forms[path.slice("forms.".length)];
    }
    return sendJson(reply, 200, root);
  });

  // The `tags` form's action, as Prismic's: every tag used by a document at the master ref.
  app.get("/api/v2/tags", async (_request, reply) => sendJson(reply, 200, store.masterTags));

  app.get("/api/v2/documents/search", async (request, reply) => {
    served.search++;
    const params = new URLSearchParams(request.url.split("?")[1] ?? "");
    const ref = params.get("ref");
    if (!ref) throw new ApiError(400, { type: "parsing-error", message: "The ref parameter is required" });
    const snapshot = store.snapshot(ref);
    // Content at a master ref never changes; a preview ref shows drafts that do.
    const immutable = snapshot.kind !== "preview";
    reply.header("cache-control", immutable ? "public, max-age=31536000, immutable" : "no-store");
    // The answer names this service's address (links, hrefs, images): part of what it is kept by.
    const key = `${options.publicUrl()} ${request.url}`;
    const kept = immutable ? answers.get(key) : undefined;
    if (kept) {
      keptAnswers++;
      return reply.code(200).type("application/json; charset=utf-8").send(kept);
    }
    const result = searchDocuments(snapshot.documents, params, {
      ref,
      apiBase: apiBase(),
      masterLang: MASTER_LANG.id,
      // The models last read: every client reads the API root (which reads them again) before it
      // searches, and a search must not cost a look at the model files.
      knownTypes: models.last().customTypes.map((t) => t.id),
      // Each page of a listing at a ref that never changes is cut from one filtering and sorting.
      ...(immutable ? { matches } : {}),
    });
    const body = Buffer.from(serializeJson(result));
    if (immutable) answers.set(key, body);
    return reply.code(200).type("application/json; charset=utf-8").send(body);
  });

  app.get<{ Params: { name: string } }>("/assets/images/:name", async (request, reply) => {
    const { name } = request.params;
    const ext = /^[a-z0-9][a-z0-9-]*\.([a-z0-9]+)$/.exec(name)?.[1];
    const type = ext ? IMAGE_TYPES[ext] : undefined;
    if (!type) return sendJson(reply, 404, { error: "not_found", message: `No image ${name}` });
    try {
      const bytes = await readFile(join(options.imagesDir, name));
      return reply.type(type).header("cache-control", "public, max-age=31536000, immutable").send(bytes);
    } catch {
      return sendJson(reply, 404, { error: "not_found", message: `No image ${name}` });
    }
  });

  app.post<{ Body: { upsert?: unknown; remove?: unknown } }>("/admin/publish", async (request, reply) => {
    const body = request.body;
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      return sendJson(reply, 400, {
        error: "bad_request",
        message: 'Send {"upsert":[document…],"remove":[id…]}',
      });
    }
    for (const key of ["upsert", "remove"] as const) {
      if (body[key] !== undefined && !Array.isArray(body[key])) {
        return sendJson(reply, 400, { error: "bad_request", message: `"${key}" must be an array` });
      }
    }
    const result = await store.publish(body as { upsert?: unknown[]; remove?: unknown[] });
    const target = webhookTarget();
    const webhook = target
      ? await deliverWebhook(target, apiUpdateBody(target, result.masterRef, result.documents))
      : NOT_CONFIGURED;
    request.log.info({ masterRef: result.masterRef, documents: result.documents, webhook }, "published");
    return sendJson(reply, 200, { ...result, webhook });
  });

  app.put<{ Params: { id: string }; Body: unknown }>("/admin/drafts/:id", async (request, reply) => {
    const draft = await store.putDraft(request.params.id, request.body);
    return sendJson(reply, 200, { token: draft.token, expiresAt: new Date(draft.expiresAt).toISOString() });
  });

  app.delete<{ Params: { id: string } }>("/admin/drafts/:id", async (request, reply) => {
    const existed = await store.deleteDraft(request.params.id);
    if (!existed)
      return sendJson(reply, 404, { error: "not_found", message: `No draft for ${request.params.id}` });
    return reply.code(204).send();
  });

  app.post("/admin/webhook/test", async (_request, reply) => {
    const target = webhookTarget();
    return sendJson(reply, 200, {
      webhook: target ? await deliverWebhook(target, testTriggerBody(target)) : NOT_CONFIGURED,
    });
  });
}
