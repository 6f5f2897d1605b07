import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { statusForFailure } from "#http/error-pages.ts";
import { fallbackStyles, sendError } from "#http/error-reply.ts";
import type { SiteStore } from "#storage";

export interface SiteErrorPages {
  /** The stored 404.html with status 404 (the built-in fallback when it cannot be read). */
  notFound(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply>;
  /** A failure (storage, a bug): 503 when it passes, else 500, with the stored page for that status. */
  failed(request: FastifyRequest, reply: FastifyReply, error: unknown): Promise<FastifyReply>;
}

/**
 * The site server's error answers: the site's own stored pages (404.html, 500.html, 503.html,
 * rendered by the build), falling back to the built-in page when storage cannot give them.
 * Installs the error and not-found handlers of the context it is called in.
 */
export function siteErrorPages(app: FastifyInstance, store: SiteStore): SiteErrorPages {
  const stored = (status: number) => async () => (await store.get(`${status}.html`))?.body;
  const pages: SiteErrorPages = {
    notFound: (request, reply) => sendError(request, reply, { status: 404, storedPage: stored(404) }),
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
