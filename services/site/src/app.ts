import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { surrogateKeys } from "#edge";
import { parseHttpDate } from "#http/http-date.ts";
import { CACHE_CONTROL } from "#manifest/manifest.ts";
import { watchContactQueue } from "#metrics/contact-metrics.ts";
import { healthRoutes } from "#ops/health-routes.ts";
import { degradable, type ReadinessChecks } from "#ops/readiness.ts";
import { assertSafeKey, contentTypeFor, type SiteStore, type StoredObject } from "#storage";
import { CompressionCache, chooseEncoding, isCompressible } from "./compression.ts";
import { contactRoutes } from "./contact.ts";
import type { ContactQueue } from "./contact-queue.ts";
import { siteErrorPages } from "./error-pages.ts";
import { RouteTable } from "./route-table.ts";

export interface SiteAppOptions {
  store: SiteStore;
  /** How often the build manifest (canonical routes) is re-read; lower in tests. */
  manifestRefreshMs?: number;
  /** When given, `POST /api/contact` queues messages there. */
  contact?: ContactQueue;
}

/**
 * Headers on every answer. Images may come from the content service's own
 * host (Prismic's CDN in production, the local service here), hence `img-src *`;
 * scripts, styles and forms stay on this origin.
 */
export const SECURITY_HEADERS: Record<string, string> = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "strict-origin-when-cross-origin",
  "x-frame-options": "SAMEORIGIN",
  "permissions-policy": "camera=(), microphone=(), geolocation=(), interest-cohort=()",
  "content-security-policy": [
    "default-src 'self'",
    "img-src * data:",
    // Google Tag Manager (only after consent, see docs/security.md) and the analytics it talks to.
    "script-src 'self' https://www.googletagmanager.com",
    "connect-src 'self' https://*.google-analytics.com https://*.analytics.google.com https://*.googletagmanager.com",
    "style-src 'self'",
    // The embed players web/src/lib/embed-providers.ts rebuilds (tests/unit/embed-providers.test.ts keeps them in step).
    "frame-src https://www.youtube-nocookie.com https://www.youtube.com https://player.vimeo.com https://www.google.com https://open.spotify.com https://w.soundcloud.com https://platform.twitter.com https://www.instagram.com",
    "form-action 'self'",
    "base-uri 'self'",
    "frame-ancestors 'self'",
    "object-src 'none'",
  ].join("; "),
};

/** Serves the rendered site from storage: the local and small-deployment alternative to a CDN in front of S3. */
export async function siteApp(app: FastifyInstance, options: SiteAppOptions): Promise<void> {
  const { store } = options;
  const routes = new RouteTable(store, options.manifestRefreshMs);
  const compression = new CompressionCache();

  app.addHook("onSend", async (_request, reply) => {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) reply.header(name, value);
  });

  // Storage failures thrown by the handlers below reach the error handler this installs (500/503 pages).
  const errors = siteErrorPages(app, store, (status) => routes.errorPageKey(status));
  const notFound = errors.notFound;
  if (options.contact) {
    await app.register(contactRoutes, { queue: options.contact, store, onServerError: errors.failed });
    const contact = options.contact;
    if (contact.ping) {
      const unwatch = watchContactQueue(() => contact.ping?.() ?? Promise.resolve());
      app.addHook("onClose", async () => unwatch());
    }
  }

  // `/_pressroom/healthz` and `/readyz` (storage; the contact queue, degradable): see siteReadiness.
  healthRoutes(app, siteReadiness(store, options.contact));

  app.get("/*", async (request, reply) => {
    // An alias (`/home` → `/`): a redirect like any other, kept by the edge, purged by its own
    // route key, its route's or `all`.
    const alias = await routes.alias(request.url);
    if (alias !== undefined) {
      // A route that is itself a redirect now (the home page's uid renamed leaves `/` one): the
      // alias goes straight where it goes, in one hop (and a publish that changes the route purges
      // the alias with it).
      const target = await routes.match(alias);
      const [location, status] = target?.redirect ? [target.redirect, target.status] : [alias, undefined];
      return redirect(request, reply, location, status, alias);
    }
    const path = decodePath(request);
    if (path === undefined) return notFound(request, reply);
    const extension = /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase();
    if (extension === "html") return storedPage(request, reply, path);
    if (extension) return serve(request, reply, path.slice(1));
    const match = await routes.match(path);
    if (!match) return notFound(request, reply);
    if (match.redirect) return redirect(request, reply, match.redirect, match.status);
    return serve(request, reply, match.key);
  });

  /**
   * 301 (or an editor's temporary 302) to `location`, the visitor's query string kept. Cached at
   * the edge like a page (its route's key purges it when the redirect changes or goes, or the route
   * becomes a page again); browsers revalidate it.
   */
  function redirect(
    request: FastifyRequest,
    reply: FastifyReply,
    location: string,
    status: 301 | 302 = 301,
    /** The route whose change also changes this answer (its key is added). */
    dependsOn?: string,
  ) {
    const query = request.url.includes("?") ? request.url.slice(request.url.indexOf("?") + 1) : "";
    return reply
      .header("cache-control", CACHE_CONTROL.html)
      .header("surrogate-key", surrogateKeys(request.url, { alsoRoutes: dependsOn ? [dependsOn] : [] }))
      .redirect(withQuery(location, query), status);
  }

  /**
   * A path naming a stored page (`/about/index.html`, `/index.html`, `/404.html`): no address of
   * the site ends in `.html`, these are storage keys. Decision: `…/index.html` of a route answers
   * 301 to the route, keeping the query: a bucket served as a website answers such addresses, so
   * links and bookmarks of that form exist, and one hop brings their visitors to the page at its
   * one address. Anything else (`/404.html`, `/500.html`, a folder that is no route) is the 404.
   */
  async function storedPage(request: FastifyRequest, reply: FastifyReply, path: string) {
    const folder = /^(.*\/)index\.html$/.exec(path)?.[1];
    if (folder === undefined) return notFound(request, reply);
    const route = folder === "/" ? folder : folder.slice(0, -1);
    const match = await routes.match(route);
    if (!match || (routes.empty && !(await store.head(match.key)))) return notFound(request, reply);
    return redirect(
      request,
      reply,
      match.redirect ?? routes.spelling(route) ?? encodeURI(route),
      match.status,
    );
  }

  async function serve(request: FastifyRequest, reply: FastifyReply, key: string) {
    let safeKey: string;
    try {
      safeKey = assertSafeKey(key);
    } catch {
      return notFound(request, reply);
    }
    // `.pressroom/` holds the build's metadata, never part of the site.
    if (safeKey.startsWith(".")) return notFound(request, reply);
    const object = await store.get(safeKey);
    if (!object) return notFound(request, reply);
    // A redirect object at a route the manifest read a moment ago still calls a page (a rename
    // published since): the object says where the page went.
    if (object.redirectLocation) return redirect(request, reply, object.redirectLocation);
    return send(request, reply, object, 200, compression);
  }
}

/**
 * `location` with the visitor's query string added: after the location's own query (a web address
 * may carry one: `&`), before its fragment.
 */
export function withQuery(location: string, query: string): string {
  if (query === "") return location;
  const hashAt = location.indexOf("#");
  const base = hashAt === -1 ? location : location.slice(0, hashAt);
  const fragment = hashAt === -1 ? "" : location.slice(hashAt);
  return `${base}${base.includes("?") ? "&" : "?"}${query}${fragment}`;
}

/**
 * The site is ready when storage answers (a missing key is an answer). The contact form's queue
 * (Redis) is reported apart, degradable: without it the form answers 503 "try again", while every
 * page is still served, so a load balancer following readiness must keep the site in.
 */
export function siteReadiness(store: SiteStore, contact: ContactQueue | undefined): ReadinessChecks {
  return {
    storage: () => store.head("index.html"),
    ...(contact?.ping ? { "contact-queue": degradable(() => (contact.ping as () => Promise<void>)()) } : {}),
  };
}

/**
 * Text (HTML, CSS, JavaScript, SVG, XML) goes out brotli- or gzip-compressed when the client
 * accepts it: without a CDN in front, this server is what visitors download from. A compressed
 * body carries the weak form of the object's ETag (the same content, another encoding).
 */
async function send(
  request: FastifyRequest,
  reply: FastifyReply,
  object: StoredObject,
  status: number,
  compression: CompressionCache,
) {
  const contentType = object.contentType || contentTypeFor(object.key);
  const compressible = isCompressible(contentType, object.body.length);
  const encoding = compressible ? chooseEncoding(request.headers["accept-encoding"]) : undefined;
  reply
    .header("content-type", contentType)
    .header("cache-control", object.cacheControl || "public, max-age=0, must-revalidate")
    // What the edge purges this answer by (its route, and the site-wide key): see #edge.
    .header("surrogate-key", surrogateKeys(request.url))
    .header("etag", encoding && !object.etag.startsWith("W/") ? `W/${object.etag}` : object.etag);
  // When storage last wrote the object (S3's LastModified, the file's mtime): the same for every
  // replica and across restarts, and it moves only when a publish or a build writes the object again.
  const lastModified = object.lastModified.getTime();
  const known = Number.isFinite(lastModified) && lastModified > 0;
  if (known) reply.header("last-modified", object.lastModified.toUTCString());
  if (compressible) reply.header("vary", "accept-encoding");
  if (status === 200 && notModified(request, object.etag, known ? lastModified : undefined))
    return reply.code(304).send();
  if (!encoding) return reply.code(status).send(object.body);
  const body = await compression.get(object.etag, encoding, object.body);
  return reply.code(status).header("content-encoding", encoding).send(body);
}

/**
 * RFC 9110 §13.2.2: If-None-Match decides when it is sent; otherwise If-Modified-Since does, for
 * GET and HEAD: not modified when the object was last written at or before that second (HTTP dates
 * have no milliseconds). An If-Modified-Since that is not one HTTP-date is ignored.
 */
function notModified(request: FastifyRequest, etag: string, lastModified: number | undefined): boolean {
  const ifNoneMatch = request.headers["if-none-match"];
  if (ifNoneMatch !== undefined) return matchesEtag(ifNoneMatch, etag);
  if (request.method !== "GET" && request.method !== "HEAD") return false;
  const since = parseHttpDate(request.headers["if-modified-since"]);
  return since !== undefined && lastModified !== undefined && Math.floor(lastModified / 1000) * 1000 <= since;
}

function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const strip = (value: string) => value.trim().replace(/^W\//, "");
  return header.split(",").some((candidate) => candidate.trim() === "*" || strip(candidate) === strip(etag));
}

/** The request path, decoded; undefined for anything that cannot name a stored object. */
function decodePath(request: FastifyRequest): string | undefined {
  const raw = request.url.split("?")[0] ?? "/";
  try {
    const path = decodeURIComponent(raw);
    if (!path.startsWith("/") || path.includes("\0") || path.includes("\\") || /(^|\/)\.\.?(\/|$)/.test(path))
      return undefined;
    return path;
  } catch {
    return undefined;
  }
}
