import { SliceZone } from "@prismicio/react";
import type { ReactNode } from "react";
import { components, MissingSlice } from "../../slices/index.ts";
import { PageHeader } from "../components/page-header.tsx";
import { SiteLayout } from "../components/site-layout.tsx";
import { type PageDocument, variationOf } from "../content/index.ts";
import { brandOf, documentTitle, pageHeading, pageTitleOf, shareImageOf } from "../lib/page-meta.ts";
import { canonicalOverrideOf, noindexOf } from "../lib/page-seo.ts";
import type { SliceContext } from "../slice-context.ts";
import { pageGraph } from "../structured-data/route-graph.ts";
import { editorNotes } from "./editor-notes.ts";
import type { ViewProps } from "./view-props.ts";

/**
 * A page: its title as the one `<h1>` and its slices. A page that opens with
 * a hero lets the hero's heading lead visually; the title stays the `<h1>`
 * for screen readers and search engines, unless the hero heading is itself
 * a heading 1 (the model allows it for pages without another title). A page
 * without a title is headed by a fallback (pageHeading), which preview names.
 */
export function PageView({
  page,
  sliceContext,
  ...view
}: ViewProps & { page: PageDocument; sliceContext: SliceContext }): ReactNode {
  const brand = brandOf(view.settings);
  const title = pageHeading(page, brand).text;
  const shareTitle = pageTitleOf(page, brand);
  const first = page.data.slices[0];
  // A hero of a variation no component renders is left out: it cannot lead.
  const opensWithHero = first?.slice_type === "hero" && variationOf(first) !== undefined;
  const heroIsH1 = opensWithHero && first.primary.heading[0]?.type === "heading1";
  const canonicalUrl = canonicalOverrideOf(page, view.siteUrl);
  return (
    <SiteLayout
      settings={view.settings}
      siteUrl={view.siteUrl}
      assets={view.assets}
      currentPath={view.path}
      notes={editorNotes(view.mode, view.settings, page)}
      meta={{
        title: documentTitle(shareTitle, brand),
        shareTitle,
        description: page.data.meta_description?.trim() || undefined,
        canonicalPath: view.path,
        ...(canonicalUrl ? { canonicalUrl } : {}),
        image: shareImageOf(page, view.settings),
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
