import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ContentClient } from "#content";
import { createClientSource } from "#content/source.ts";
import { fallbackStyles, sendError } from "#http/error-reply.ts";
import { website } from "#website";
import type { PreviewAssets } from "./preview-assets.ts";

/** Editors retry soon: the preview asks for 5 s, not the site's 30. */
const PREVIEW_RETRY_AFTER_SECONDS = 5;
const UNAVAILABLE_TEXT =
  "The content service is not answering, so the preview cannot load content right now. It works again as soon as the service is back; try again in a moment.";

const TOO_MANY_TEXT =
  "This preview has asked for more pages in the last minute than the content service allows one visitor. Wait a moment, then reload.";

export interface PreviewErrorPages {
  /** The content API is down (5xx, 429, timeout, refused): 503. */
  unavailable(request: FastifyRequest, reply: FastifyReply, error: unknown): Promise<FastifyReply>;
  /** A render failed with content up (a template or content bug): 500. */
  failed(request: FastifyRequest, reply: FastifyReply, error: unknown): Promise<FastifyReply>;
  /** This client asked for more renders than the content API's quota allows it: 429 for `seconds`. */
  tooMany(request: FastifyRequest, reply: FastifyReply, seconds: number): Promise<FastifyReply>;
}

/**
 * The preview's error answers: the site's own error page (404, 500, 503), rendered live at the
 * master ref like every preview route, with the request id; when that render fails too (the
 * content API is down, so there are no settings to render with), the built-in fallback page.
 * Installs the error and not-found handlers of the context it is called in.
 */
export function previewErrorPages(
  app: FastifyInstance,
  options: { client: ContentClient; assets: PreviewAssets; siteUrl: string },
): PreviewErrorPages {
  const sitePage = (request: FastifyRequest, status: number) => async () => {
    const route = status === 404 ? website.routes.notFound : website.routes.errors[status];
    // A status the website has no page for: the built-in one.
    if (route === undefined) return undefined;
    const ref = await options.client.fetchMasterRef();
    const result = await website.render(route, {
      source: createClientSource(options.client, ref),
      siteUrl: options.siteUrl,
      assets: options.assets.site,
      mode: "preview",
      logger: request.log,
    });
    return result.html;
  };
  const answer = (request: FastifyRequest, reply: FastifyReply, status: 500 | 503, error: unknown) =>
    sendError(request, reply, {
      status,
      error,
      storedPage: sitePage(request, status),
      ...(status === 503 ? { text: UNAVAILABLE_TEXT, retryAfterSeconds: PREVIEW_RETRY_AFTER_SECONDS } : {}),
    });
  const pages: PreviewErrorPages = {
    unavailable: (request, reply, error) => answer(request, reply, 503, error),
    failed: (request, reply, error) => answer(request, reply, 500, error),
    tooMany: (request, reply, seconds) =>
      sendError(request, reply.header("retry-after", String(seconds)), { status: 429, text: TOO_MANY_TEXT }),
  };
  fallbackStyles(app);
  app.setNotFoundHandler((request, reply) =>
    sendError(request, reply, { status: 404, storedPage: sitePage(request, 404) }),
  );
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      request.log.info({ code: error.code, statusCode: status }, "request refused");
      return sendError(request, reply, { status });
    }
    return pages.failed(request, reply, error);
  });
  return pages;
}
