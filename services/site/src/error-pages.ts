import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { surrogateKeys } from "#edge";
import { prefersJson, statusForFailure } from "#http/error-pages.ts";
import { fallbackStyles, sendError } from "#http/error-reply.ts";
import type { SiteStore } from "#storage";

export interface SiteErrorPages {
  /** The stored not-found page with status 404 (the built-in fallback when it cannot be read). */
  notFound(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply>;
  /** A failure (storage, a bug): 503 when it passes, else 500, with the stored page for that status. */
  failed(request: FastifyRequest, reply: FastifyReply, error: unknown): Promise<FastifyReply>;
}

/**
 * The site server's error answers: the site's own stored pages (the build renders one per status,
 * `404.html`, `500.html`, `503.html` for the demo; `keyOf` finds them in the manifest), falling back
 * to the built-in page when storage cannot give them.
 * Installs the error and not-found handlers of the context it is called in.
 */
export function siteErrorPages(
  app: FastifyInstance,
  store: SiteStore,
  keyOf: (status: number) => Promise<string>,
): SiteErrorPages {
  const stored = (status: number) => async () => (await store.get(await keyOf(status)))?.body;
  const pages: SiteErrorPages = {
    notFound: async (request, reply) =>
      (await sendStoredNotFound(store, await keyOf(404), request, reply))
        ? reply
        : sendError(request, reply, { status: 404, storedPage: stored(404) }),
    failed: (request, reply, error) => {
      const status = statusForFailure(error);
      return sendError(request, reply, { status, error, storedPage: stored(status) });
    },
  };
  fallbackStyles(app);
  app.setNotFoundHandler((request, reply) => pages.notFound(request, reply));
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const status = error.statusCode ?? 500;
    // Fastify's own refusals (unreadable body, too large…): the built-in page, logged as info.
    if (status >= 400 && status < 500) {
      request.log.info({ code: error.code, statusCode: status }, "request refused");
      return status === 404 ? pages.notFound(request, reply) : sendError(request, reply, { status });
    }
    return pages.failed(request, reply, error);
  });
  return pages;
}

/**
 * A page read (GET, HEAD) of a path the site does not have: the stored not-found page as it is stored,
 * with its cache policy, so the edge keeps it like a page — tagged with the path's route key (a
 * publish creating that route purges it) and `404` (a publish changing the not-found page purges
 * every cached 404). Not a failure: no request id (the page's reference slot stays empty, as when a
 * bucket serves it). False when it cannot be sent so (another method, a JSON client, no stored
 * page, storage failing): the caller answers as for any error, `no-store`.
 */
async function sendStoredNotFound(
  store: SiteStore,
  key: string,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<boolean> {
  if (request.method !== "GET" && request.method !== "HEAD") return false;
  if (prefersJson(request.headers.accept)) return false;
  const page = await store.get(key).catch(() => undefined);
  if (!page) return false;
  // A reply is thenable: never awaited or returned from here, it would wait for the answer to finish.
  void reply
    .code(404)
    .type(page.contentType || "text/html; charset=utf-8")
    .header("cache-control", page.cacheControl || "no-store")
    .header("surrogate-key", surrogateKeys(request.url, { notFound: true }))
    .send(page.body);
  return true;
}
