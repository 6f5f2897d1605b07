import type { WebPage } from "schema-dts";
import { absoluteUrl } from "../lib/site-url.ts";

/** The site's node id (organization.ts `websiteNode`): a page says it is part of it. */
function websiteId(siteUrl: string): string {
  return absoluteUrl(siteUrl, "/#website");
}

/**
 * The page itself: what it is called, where it lives and which site it belongs to. No Google rich
 * result reads a `WebPage`; schema.org's WebPage has no required property, and we hold it to a
 * `name` and an absolute `url` (tests/support/structured-data-rules.ts). `url` is the page's
 * canonical address (an editor's override, when set), as `<link rel="canonical">` says.
 */
export function webPageNode(options: {
  siteUrl: string;
  url: string;
  name: string;
  description?: string | undefined;
}): WebPage | undefined {
  const name = options.name.trim();
  if (!name) return undefined;
  const description = options.description?.trim();
  return {
    "@type": "WebPage",
    "@id": `${options.url}#webpage`,
    url: options.url,
    name,
    ...(description ? { description } : {}),
    inLanguage: "en",
    isPartOf: { "@id": websiteId(options.siteUrl) },
  };
}
