/**
 * A sitemap `<lastmod>`: the UTC day of Prismic's `2026-03-09T16:40:00+0000`, `2026-03-09` (the W3C
 * date the sitemap protocol allows). A day, not the second: crawlers read a sitemap a few times a day
 * at most, and a date that moves on every edit would make every edit re-render the sitemap; with a
 * day it changes on a document's first publication of the day only (the planner compares it).
 */
export function sitemapDate(date: string | null | undefined): string | undefined {
  if (!date) return undefined;
  const parsed = new Date(date.replace(/([+-]\d{2})(\d{2})$/, "$1:$2"));
  if (Number.isNaN(parsed.getTime())) return undefined;
  return parsed.toISOString().slice(0, 10);
}
