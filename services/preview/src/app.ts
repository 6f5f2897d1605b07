import { asLink } from "@prismicio/client";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { type ContentClient, chooseRef } from "#content";
import { createClientSource } from "#content/source.ts";
import { aliasTarget } from "#manifest/aliases.ts";
import { observeRender } from "#metrics/metrics.ts";
import { healthRoutes } from "#ops/health-routes.ts";
import type { ReadinessChecks } from "#ops/readiness.ts";
import { canonicalPath } from "#redirects/redirect-paths.ts";
import { website } from "#website";
import { classifyContentError } from "./content-errors.ts";
import { MasterPages, RenderLimiter } from "./master-pages.ts";
import * as pages from "./pages.ts";
import type { PreviewAssets } from "./preview-assets.ts";
import { type CookieContext, clearPreviewCookie, previewCookie } from "./preview-cookie.ts";
import { previewErrorPages } from "./preview-errors.ts";
import { checkPreviewToken, isRealRepository, type TokenRule } from "./preview-token.ts";
import {
  editorRedirectAt,
  pageWinsNotes,
  REDIRECT_PREVIEW_PREFIX,
  redirectPreviewPage,
} from "./redirect-page.ts";
import { RedirectsCache } from "./redirects-at-ref.ts";
import { safeSitePath } from "./safe-path.ts";
import { securityHeaders } from "./security-headers.ts";

export interface PreviewAppOptions {
  /** Built in the entry file (createContentClient) with the models' schema. */
  client: ContentClient;
  repository: string;
  /** Which preview tokens are accepted (tokenRuleFor(endpoint, repository)). */
  tokenRule: TokenRule;
  /** The public site's origin: canonical urls in pages, and "see the published page" links. */
  siteUrl: string;
  assets: PreviewAssets;
  /** Renders (content-API work) one client may cause per minute; default 120. */
  rendersPerMinute?: number;
}

const HTML = "text/html; charset=utf-8";
/** Prismic document ids are short url-safe strings; anything else is not worth a request. */
const DOCUMENT_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** `/api/preview`, `/api/exit-preview`, `/slice-simulator`, assets, and every site route rendered live. */
export async function previewApp(app: FastifyInstance, options: PreviewAppOptions): Promise<void> {
  const { client, assets, tokenRule, siteUrl } = options;
  const real = isRealRepository(tokenRule);
  const pageHeaders = securityHeaders({ toolbar: real, simulator: false });
  const simulatorHeaders = securityHeaders({ toolbar: false, simulator: true });
  const masterPages = new MasterPages(() => client.fetchMasterRef());
  const redirects = new RedirectsCache(client, siteUrl);
  const renders = new RenderLimiter(options.rendersPerMinute ?? 120);

  app.addHook("onSend", async (request, reply) => {
    const simulator = request.url.split("?")[0] === "/slice-simulator";
    for (const [name, value] of Object.entries(simulator ? simulatorHeaders : pageHeaders))
      reply.header(name, value);
  });

  const errors = previewErrorPages(app, { client, assets, siteUrl });

  const cookieContext = (request: FastifyRequest): CookieContext => ({
    // With trustProxy, `request.protocol` follows the proxy's x-forwarded-proto.
    secure: request.protocol === "https",
    httpOnly: !real,
  });
  const html = (reply: FastifyReply, status: number, body: string) =>
    reply.code(status).header("cache-control", "no-store").type(HTML).send(body);

  healthRoutes(app, previewReadiness(client));

  app.get<{ Querystring: { token?: unknown; documentId?: unknown } }>(
    "/api/preview",
    async (request, reply) => {
      const check = checkPreviewToken(request.query.token, tokenRule);
      if (!check.ok) {
        request.log.warn({ reason: check.reason }, "preview link refused");
        return html(reply, 400, pages.invalidTokenPage(assets, check.reason));
      }
      const documentId = request.query.documentId;
      let target = "/";
      if (typeof documentId === "string" && DOCUMENT_ID.test(documentId)) {
        try {
          // What resolvePreviewURL does (the document at the token's ref, its url), keeping the
          // document: one without a url may be a redirect, which has a preview of its own.
          const doc = await client.getByID(documentId, { ref: check.token, lang: "*" });
          const url = asLink(doc);
          target =
            typeof url === "string"
              ? safeSitePath(url)
              : doc.type === website.redirects?.type
                ? `${REDIRECT_PREVIEW_PREFIX}${encodeURIComponent(doc.id)}`
                : "/";
          // A uid the site refuses resolves to a path that shows a 404: say why instead.
          const refused =
            typeof url === "string" && target !== "/" && website.routes.canonical(target) === undefined;
          const problem = refused ? website.routes.problem(doc) : undefined;
          if (problem) {
            request.log.info({ documentId, problem }, "preview of a document whose uid cannot be a route");
            reply.header("set-cookie", previewCookie(check.token, cookieContext(request)));
            return html(reply, 422, pages.refusedUidPage(assets, problem));
          }
        } catch (error) {
          const failure = classifyContentError(error, true);
          if (failure === "preview-ended") {
            reply.header("set-cookie", clearPreviewCookie(cookieContext(request)));
            return html(reply, 410, pages.previewEndedPage(assets, siteAddress(siteUrl, "/")));
          }
          if (failure === "unavailable") return errors.unavailable(request, reply, error);
          // The document does not exist at that ref (deleted, or never saved): the home page.
          request.log.info({ documentId, err: error }, "preview document not found; opening the home page");
        }
      }
      return reply
        .header("set-cookie", previewCookie(check.token, cookieContext(request)))
        .header("cache-control", "no-store")
        .redirect(target, 302);
    },
  );

  app.get<{ Querystring: { path?: unknown } }>("/api/exit-preview", async (request, reply) => {
    return reply
      .header("set-cookie", clearPreviewCookie(cookieContext(request)))
      .header("cache-control", "no-store")
      .redirect(safeSitePath(request.query.path), 302);
  });

  app.get("/slice-simulator", async (_request, reply) => html(reply, 200, pages.simulatorPage(assets)));

  // A redirect document's preview (redirect-page.ts): what it does, and whether the site serves it.
  app.get<{ Params: { id: string } }>(`${REDIRECT_PREVIEW_PREFIX}:id`, async (request, reply) => {
    const choice = chooseRef(request.headers.cookie, options.repository);
    const previewing = choice.source === "preview";
    const { id } = request.params;
    try {
      const ref = choice.ref ?? (await masterPages.masterRef());
      const at = DOCUMENT_ID.test(id) ? await redirects.at(ref, previewing) : undefined;
      const rule = at?.rules.get(id);
      if (!at || !rule) return reply.callNotFound();
      const body = pages.decorate(redirectPreviewPage(assets, rule, at), assets, {
        path: safeSitePath(request.url),
        previewing,
        toolbarRepository: real ? options.repository : undefined,
      });
      return html(reply, 200, body);
    } catch (error) {
      return contentFailure(request, reply, error, previewing, "/");
    }
  });

  app.get("/assets/*", async (request, reply) => {
    const file = assets.files.get(request.url.split("?")[0] ?? "");
    if (!file)
      return reply
        .code(404)
        .header("cache-control", "no-store")
        .type("text/plain; charset=utf-8")
        .send("Not found");
    return reply
      .header("content-type", file.contentType)
      .header("cache-control", "public, max-age=31536000, immutable")
      .send(file.body);
  });

  app.get("/*", async (request, reply) => {
    const alias = aliasTarget(request.url, website.routes.aliases);
    if (alias) return reply.header("cache-control", "no-store").redirect(alias, 301);
    const choice = chooseRef(request.headers.cookie, options.repository);
    const previewing = choice.source === "preview";
    // Anonymous requests show the published site: one render per master ref and path, shared by
    // all (master-pages.ts); the query string changes nothing a route shows, so it is no cache key.
    const anonymous = choice.source === "master";
    const path = anonymous ? (request.url.split("?")[0] ?? "/") : request.url;
    const send = (page: { status: number; contentType: string; body: string }) =>
      reply.code(page.status).header("cache-control", "no-store").type(page.contentType).send(page.body);
    try {
      const ref = choice.ref ?? (await masterPages.masterRef());
      const cached = anonymous ? masterPages.get(ref, path) : undefined;
      if (cached) return send(cached);
      const wait = renders.take(request.ip);
      if (wait !== undefined) {
        request.log.info({ path: path.slice(0, 200) }, "preview render refused: too many from this client");
        return errors.tooMany(request, reply, wait);
      }
      // Editors' redirects at this ref (redirects-at-ref.ts): a path one of them serves goes there
      // (302: a preview keeps nothing), and a page a redirect claims says that the page wins.
      const at = await redirects.at(ref, previewing).catch((error: unknown) => {
        if (classifyContentError(error, previewing) !== "other") throw error;
        request.log.warn({ err: error }, "the editors' redirects could not be read at this ref");
        return undefined;
      });
      const canonical = canonicalPath(path.split(/[?#]/, 1)[0] as string);
      const here = "path" in canonical ? canonical.path : undefined;
      const redirect = at && here ? editorRedirectAt(at, here) : undefined;
      if (redirect) return reply.header("cache-control", "no-store").redirect(redirect.location, 302);
      const renderStarted = performance.now();
      const result = await website.render(path, {
        source: createClientSource(client, ref),
        siteUrl,
        assets: assets.site,
        mode: "preview",
        logger: request.log,
      });
      observeRender("preview", renderStarted);
      const body = result.contentType.startsWith("text/html")
        ? pages.decorate(result.html, assets, {
            path: safeSitePath(path),
            previewing,
            toolbarRepository: real ? options.repository : undefined,
            notes: at && here && result.status === 200 ? pageWinsNotes(at, here) : [],
          })
        : result.html;
      const page = { status: result.status, contentType: result.contentType, body };
      if (anonymous) masterPages.set(ref, path, page);
      return send(page);
    } catch (error) {
      return contentFailure(request, reply, error, previewing, path);
    }
  });

  /** A render or read that failed: the preview ended (410), the content API is down (503), or 500. */
  function contentFailure(
    request: FastifyRequest,
    reply: FastifyReply,
    error: unknown,
    previewing: boolean,
    path: string,
  ) {
    const failure = classifyContentError(error, previewing);
    if (failure === "preview-ended") {
      request.log.info({ path }, "preview ref expired or unknown; cookie cleared");
      reply.header("set-cookie", clearPreviewCookie(cookieContext(request)));
      return html(reply, 410, pages.previewEndedPage(assets, siteAddress(siteUrl, safeSitePath(path))));
    }
    if (failure === "unavailable") return errors.unavailable(request, reply, error);
    return errors.failed(request, reply, error);
  }
}

/** `siteUrl` + an absolute path, with exactly one slash between them. */
function siteAddress(siteUrl: string, path: string): string {
  return `${siteUrl.endsWith("/") ? siteUrl.slice(0, -1) : siteUrl}${path}`;
}

/** The preview server is ready when the content API answers with a master ref. */
export function previewReadiness(client: { fetchMasterRef(): Promise<string> }): ReadinessChecks {
  return { content: () => client.fetchMasterRef() };
}
