import type { ReactNode } from "react";
import { PageHeader } from "../components/page-header.tsx";
import { SiteLayout } from "../components/site-layout.tsx";
import { brandOf, documentTitle } from "../lib/page-meta.ts";
import type { ServerErrorStatus } from "../routes.ts";
import type { ViewProps } from "./view-props.ts";

/** What a visitor reads on each stored server error page (the site server's built-in fallback says the same). */
export const ERROR_PAGE_TEXT: Record<ServerErrorStatus, { title: string; text: string }> = {
  500: {
    title: "Something went wrong on our side",
    text: "This page could not be shown because of an error on our server. It has been logged; please try again in a moment.",
  },
  503: {
    title: "This site is briefly unavailable",
    text: "The site cannot be reached right now, most likely for a minute or two. Please try again shortly.",
  },
};

/**
 * One page per server error status (stored once as `500.html` / `503.html`): served when storage or
 * the content API fails, so nothing in it may depend on the request, and it names no canonical url.
 */
export function ErrorView(view: Omit<ViewProps, "path"> & { status: ServerErrorStatus }): ReactNode {
  const { title, text } = ERROR_PAGE_TEXT[view.status];
  return (
    <SiteLayout
      settings={view.settings}
      siteUrl={view.siteUrl}
      assets={view.assets}
      currentPath={String(view.status)}
      meta={{ title: documentTitle(title, brandOf(view.settings)), shareTitle: title, noindex: true }}
    >
      <PageHeader eyebrow={`Error ${view.status}`} title={title} />
      <section className="not-found error-page">
        <div className="container">
          <p className="not-found__text">{text}</p>
          {/* Where the site server writes the request id (services/shared/src/http/error-pages.ts);
              empty and hidden when a bucket or CDN serves the page as stored. */}
          <p className="error-page__reference" data-request-id="" hidden />
          <div className="not-found__actions">
            <a className="button" href="/">
              Go to the home page
            </a>
          </div>
        </div>
      </section>
    </SiteLayout>
  );
}
