/**
 * A second, small website for the tests: posts at `/blog/{uid}`, a `/blog/` listing, the newest
 * posts at `/`, a `site_config` singleton every page reads, one slice (`quote`) and editors' moved
 * addresses (`moved`). It implements the contract the engine publishes any website through
 * (services/shared/src/website/contract.ts) and shares no code with the demo in web/. Chosen with
 * PRESSROOM_WEBSITE=tests/support/second-site/website.ts.
 */
import { fileURLToPath } from "node:url";
import type { PrismicDocument } from "@prismicio/client";
import type { RedirectTarget, Website } from "#website/contract.ts";
import { buildAssets, javascriptMeter } from "./src/assets.ts";
import { lastmod, render } from "./src/render.tsx";
import {
  BLOG,
  CONFIG_TYPE,
  canonical,
  ERROR_ROUTES,
  HOME,
  keyOf,
  MOVED_TYPE,
  NOT_FOUND,
  POST_TYPE,
  parse,
  problemOf,
  ROBOTS,
  resolver,
  routeOf,
  SITEMAP,
  uidProblem,
} from "./src/routes.ts";

const LISTINGS: readonly string[] = [HOME, BLOG, SITEMAP, ROBOTS, ...ERROR_ROUTES];
const here = (relative: string) => fileURLToPath(new URL(relative, import.meta.url));

function targetOf(link: unknown): RedirectTarget {
  const field = (link ?? {}) as { link_type?: string; id?: string; url?: string; isBroken?: boolean };
  if (field.link_type === "Document" && field.id) return { kind: "document", id: field.id };
  if (field.link_type === "Web" && field.url) return { kind: "url", url: field.url };
  return { kind: "none" };
}

export const website: Website = {
  name: "second-site",
  projectDir: here("./"),
  types: [CONFIG_TYPE, POST_TYPE, MOVED_TYPE],
  frame: [CONFIG_TYPE],
  // The listings show posts' titles: a build hands a listing whole documents of shared types only.
  shared: [POST_TYPE],
  routes: {
    resolver,
    ofDocument: routeOf,
    problem: problemOf,
    documentAt(path) {
      const parsed = parse(path);
      return parsed.kind === "post" ? { type: POST_TYPE, uid: parsed.uid } : undefined;
    },
    canonical,
    key: keyOf,
    listings: LISTINGS,
    isListing: (route) => LISTINGS.includes(route),
    isSitemap: (route) => route === SITEMAP,
    notFound: NOT_FOUND,
    errors: { 404: "404", 500: "500", 503: "503" },
    aliases: {},
    reserved: [],
    uidProblem,
  },
  redirects: {
    type: MOVED_TYPE,
    ruleOf: (doc: PrismicDocument) => ({
      id: doc.id,
      from: typeof doc.data?.from === "string" ? doc.data.from.trim() : "",
      to: targetOf(doc.data?.to),
      permanent: true,
      published: doc.first_publication_date ?? null,
    }),
  },
  seo: {
    noindexOf: () => false,
    canonicalTargetOf: () => undefined,
    lastmodOf: lastmod,
    // Nothing to hide or point elsewhere: a stub's data is empty.
    stubData: () => ({}),
  },
  content: {
    notices: (doc) =>
      ((doc.data?.slices ?? []) as { slice_type?: string }[]).flatMap((slice, i) =>
        slice.slice_type === "quote"
          ? []
          : [
              {
                documentId: doc.id,
                type: doc.type,
                uid: doc.uid ?? null,
                field: `slices[${i}]`,
                kind: "unknown-slice" as const,
                message: `slice "${slice.slice_type}" has no component on this site; it is left out`,
              },
            ],
      ),
    describeNotice: (notice) => `${notice.type} ${notice.uid ?? notice.documentId}: ${notice.message}`,
  },
  assets: {
    build: buildAssets,
    javascriptMeter,
    islandsIn: () => new Set(),
    fragmentCache: () => ({}),
    editor: {
      preview: here("./src/browser/preview.ts"),
      simulator: here("./src/browser/simulator.tsx"),
      buildOptions: {
        minify: true,
        platform: "browser",
        target: ["es2022"],
        jsx: "automatic",
        define: { "process.env.NODE_ENV": '"production"' },
        legalComments: "none",
        logLevel: "silent",
      },
    },
  },
  render,
};
