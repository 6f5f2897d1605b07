/**
 * The year in the copyright line. Never the clock: "incremental ≡ full"
 * needs identical bytes for identical content, and a clock year would make a
 * build on January 1st differ from one on December 31st. The settings
 * document's last publication is the year the site's owners last stood behind
 * the layout; every route depends on settings, so all pages always agree, and
 * republishing settings in a new year moves every page to it.
 */
export function copyrightYear(settings: {
  last_publication_date: string | null;
  first_publication_date: string | null;
}): number | undefined {
  const date = settings.last_publication_date ?? settings.first_publication_date;
  if (!date) return undefined;
  const year = Number(date.slice(0, 4));
  return Number.isInteger(year) && year > 1900 ? year : undefined;
}
