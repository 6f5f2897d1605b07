import { asText } from "@prismicio/client";
import { SliceZone } from "@prismicio/react";
import type { ReactNode } from "react";
import { components, MissingSlice } from "../../slices/index.ts";
import { PageHeader } from "../components/page-header.tsx";
import { SiteLayout } from "../components/site-layout.tsx";
import type { PageDocument } from "../content/index.ts";
import { brandOf, documentTitle, pageTitleOf, shareImageOf } from "../lib/page-meta.ts";
import { canonicalOverrideOf, noindexOf } from "../lib/page-seo.ts";
import type { SliceContext } from "../slice-context.ts";
import { pageGraph } from "../structured-data/route-graph.ts";
import type { ViewProps } from "./view-props.ts";

/**
 * A page: its title as the one `<h1>` and its slices. A page that opens with
 * a hero lets the hero's heading lead visually; the title stays the `<h1>`
 * for screen readers and search engines, unless the hero heading is itself
 * a heading 1 (the model allows it for pages without another title).
 */
export function PageView({
  page,
  sliceContext,
  ...view
}: ViewProps & { page: PageDocument; sliceContext: SliceContext }): ReactNode {
  const brand = brandOf(view.settings);
  const title = asText(page.data.title).trim();
  const shareTitle = pageTitleOf(page);
  const first = page.data.slices[0];
  const opensWithHero = first?.slice_type === "hero";
  const heroIsH1 = opensWithHero && first.primary.heading[0]?.type === "heading1";
  const canonicalUrl = canonicalOverrideOf(page, view.siteUrl);
  return (
    <SiteLayout
      settings={view.settings}
      siteUrl={view.siteUrl}
      assets={view.assets}
      currentPath={view.path}
      meta={{
        title: documentTitle(shareTitle, brand),
        shareTitle,
        description: page.data.meta_description?.trim() || undefined,
        canonicalPath: view.path,
        ...(canonicalUrl ? { canonicalUrl } : {}),
        image: shareImageOf(page),
        noindex: view.mode === "preview" || noindexOf(page),
      }}
      structuredData={pageGraph({
        page,
        settings: view.settings,
        sliceContext,
        siteUrl: view.siteUrl,
        path: view.path,
      })}
    >
      {opensWithHero ? heroIsH1 ? null : <h1 className="sr-only">{title}</h1> : <PageHeader title={title} />}
      <SliceZone
        slices={page.data.slices}
        components={components}
        defaultComponent={MissingSlice}
        context={sliceContext}
      />
    </SiteLayout>
  );
}
