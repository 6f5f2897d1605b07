import type { ReactNode } from "react";
import { PageHeader } from "../components/page-header.tsx";
import { SiteLayout } from "../components/site-layout.tsx";
import { brandOf, documentTitle } from "../lib/page-meta.ts";
import { NOT_FOUND_ROUTE } from "../routes.ts";
import type { ViewProps } from "./view-props.ts";

export const NOT_FOUND_TITLE = "This page could not be found";

/**
 * One 404 page for every unmatched path (stored once, as 404.html): nothing
 * in it may depend on the path asked for, so it has no canonical url.
 */
export function NotFoundView(view: Omit<ViewProps, "path">): ReactNode {
  return (
    <SiteLayout
      settings={view.settings}
      siteUrl={view.siteUrl}
      assets={view.assets}
      currentPath={NOT_FOUND_ROUTE}
      meta={{
        title: documentTitle("Page not found", brandOf(view.settings)),
        shareTitle: "Page not found",
        noindex: true,
      }}
    >
      <PageHeader eyebrow="Error 404" title={NOT_FOUND_TITLE} />
      <section className="not-found">
        <div className="container">
          <p className="not-found__text">
            The address may be mistyped, or the page may have moved. The navigation above leads to everything
            on this site.
          </p>
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
