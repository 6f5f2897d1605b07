/**
 * The demo website as the engine sees it: the one module of web/ that the worker, the servers and
 * the CLI import (through `#website`), implementing the contract in
 * services/shared/src/website/contract.ts. Everything else of web/ is the website's own business.
 */
import { fileURLToPath } from "node:url";
import type { Website } from "#website/contract.ts";
import { buildSiteAssets } from "./assets.ts";
import { BROWSER_BUILD } from "./browser-bundle.ts";
import { createFragmentCache, type FragmentCache } from "./components/shared-markup.tsx";
import { describeNotice, documentNotices } from "./content/index.ts";
import { typedSource } from "./content/typed-source.ts";
import { contentRoutes } from "./content-routes.ts";
import { islandsIn } from "./islands-in.ts";
import { createJavaScriptMeter } from "./js-budget.ts";
import { canonicalStub, canonicalTargetOf, noindexOf } from "./lib/page-seo.ts";
import { sitemapDate } from "./lib/sitemap-date.ts";
import { REDIRECT_TYPE, redirectRuleOf } from "./redirects/redirect-rules.ts";
import { renderRoute } from "./render.ts";
import {
  ERROR_PAGE_ROUTES,
  HOME_UID,
  isSitemapRoute,
  keyForRoute,
  NOT_FOUND_ROUTE,
  PRICE_LIST_INDEX_ROUTE,
  parseRoute,
  pathForRoute,
  RESERVED_PAGE_UIDS,
  ROBOTS_ROUTE,
  routeForDocument,
  routeProblem,
  SITEMAP_ROUTE,
  uidProblem,
} from "./routes.ts";

const LISTINGS: readonly string[] = [
  PRICE_LIST_INDEX_ROUTE,
  SITEMAP_ROUTE,
  ROBOTS_ROUTE,
  ...ERROR_PAGE_ROUTES,
];
const listingSet = new Set(LISTINGS);

export const website: Website = {
  name: "demo",
  projectDir: fileURLToPath(new URL("../../", import.meta.url)),
  types: ["settings", "price_list", "page", "redirect"],
  frame: ["settings"],
  shared: ["price_list"],
  routes: {
    resolver: contentRoutes,
    ofDocument: routeForDocument,
    problem: routeProblem,
    documentAt(path) {
      const route = parseRoute(path);
      if (route.kind === "home") return { type: "page", uid: HOME_UID };
      if (route.kind === "page") return { type: "page", uid: route.uid };
      if (route.kind === "price-list") return { type: "price_list", uid: route.uid };
      return undefined;
    },
    canonical(path) {
      const route = parseRoute(path);
      return route.kind === "not-found" ? undefined : pathForRoute(route);
    },
    key: keyForRoute,
    listings: LISTINGS,
    isListing: (route) => listingSet.has(route) || isSitemapRoute(route),
    isSitemap: isSitemapRoute,
    notFound: NOT_FOUND_ROUTE,
    errors: Object.fromEntries(ERROR_PAGE_ROUTES.map((route) => [Number(route), route])),
    aliases: { [`/${HOME_UID}`]: "/" },
    reserved: RESERVED_PAGE_UIDS,
    uidProblem,
  },
  redirects: { type: REDIRECT_TYPE, ruleOf: redirectRuleOf },
  seo: {
    noindexOf,
    canonicalTargetOf,
    lastmodOf: (doc) => sitemapDate(doc.last_publication_date),
    stubData: ({ noindex, canonical }) => ({
      ...(noindex ? { noindex: true } : {}),
      ...(canonical === undefined ? {} : { canonical_url: canonicalStub(canonical) }),
    }),
  },
  content: { notices: documentNotices, describeNotice },
  assets: {
    build: buildSiteAssets,
    javascriptMeter: createJavaScriptMeter,
    islandsIn,
    fragmentCache: createFragmentCache,
    editor: {
      preview: fileURLToPath(new URL("./browser/preview-refresh.ts", import.meta.url)),
      simulator: fileURLToPath(new URL("./simulator/simulator-client.tsx", import.meta.url)),
      buildOptions: BROWSER_BUILD,
    },
  },
  render: (path, context) =>
    renderRoute(path, {
      ...context,
      source: typedSource(context.source),
      fragments: context.fragments as FragmentCache | undefined,
    }),
};
