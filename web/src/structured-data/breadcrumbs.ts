import type { BreadcrumbList, ListItem } from "schema-dts";

export interface Crumb {
  name: string;
  /** Absolute URL of the step's page. */
  url: string;
}

/**
 * A `BreadcrumbList` from the top of the site down to the page shown. Google requires
 * `itemListElement`, each `ListItem` with `position` (from 1), `name` and `item` (the page's URL;
 * optional on the last step, given here too): developers.google.com/search/docs/appearance/structured-data/breadcrumb.
 */
export function breadcrumbListNode(trail: readonly Crumb[]): BreadcrumbList | undefined {
  const items: ListItem[] = trail
    .filter((crumb) => crumb.name.trim())
    .map((crumb, i) => ({ "@type": "ListItem", position: i + 1, name: crumb.name.trim(), item: crumb.url }));
  if (items.length < 2) return undefined;
  return { "@type": "BreadcrumbList", itemListElement: items };
}
