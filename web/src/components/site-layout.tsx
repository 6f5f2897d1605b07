import type { ReactNode } from "react";
import type { Thing } from "schema-dts";
import type { SiteAssets } from "../assets.ts";
import type { ContentNotice, SettingsDocument } from "../content/index.ts";
import { brandOf, type PageMeta } from "../lib/page-meta.ts";
import { CookieNotice } from "./cookie-notice.tsx";
import { DocumentShell } from "./document-shell.tsx";
import { SiteFooter } from "./site-footer.tsx";
import { SiteHeader } from "./site-header.tsx";

export interface LayoutProps {
  settings: SettingsDocument;
  meta: PageMeta;
  siteUrl: string;
  assets: SiteAssets;
  /** The route shown, to mark the current navigation entry (the 404 page passes its route name). */
  currentPath: string;
  /** Preview only: what editors should fix in the documents shown (pages/editor-notes.ts). */
  notes?: readonly ContentNotice[];
  /** JSON-LD nodes for `<head>` (web/src/structured-data/route-graph.ts). */
  structuredData?: readonly (Thing | undefined)[];
  children: ReactNode;
}

/** The frame of every HTML route: head, skip link, header, main, footer, cookie notice. */
export function SiteLayout({
  settings,
  meta,
  siteUrl,
  assets,
  currentPath,
  notes = [],
  structuredData,
  children,
}: LayoutProps): ReactNode {
  return (
    <DocumentShell
      meta={meta}
      brand={brandOf(settings)}
      siteUrl={siteUrl}
      assets={assets}
      tagManagerId={tagManagerIdOf(settings)}
      structuredData={structuredData}
    >
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <SiteHeader settings={settings} currentPath={currentPath} />
      <main id="main" tabIndex={-1}>
        {notes.length > 0 ? (
          <div className="container editor-notes">
            {notes.map((notice) => (
              <p
                key={`${notice.documentId}-${notice.field}`}
                className="slice-missing"
                role="note"
                data-notice={notice.field}
              >
                {`For editors: this ${notice.type === "settings" ? "site's settings document" : notice.type.replace("_", " ")} ${notice.message}.`}
              </p>
            ))}
          </div>
        ) : null}
        {children}
      </main>
      <SiteFooter settings={settings} />
      <CookieNotice settings={settings} />
    </DocumentShell>
  );
}

/** The settings' container id when it looks like one (`GTM-` and letters/digits); anything else is ignored. */
function tagManagerIdOf(settings: SettingsDocument): string | undefined {
  const id = settings.data.tag_manager_id?.trim().toUpperCase();
  return id && /^GTM-[A-Z0-9]{4,12}$/.test(id) ? id : undefined;
}
