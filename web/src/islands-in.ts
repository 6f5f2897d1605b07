/**
 * The islands a rendered page hydrates, read from its markup. Its own module, without the browser
 * bundle's builder (esbuild), so that a render thread that only reads pages does not load it.
 */
const ISLAND_ATTRIBUTE = /data-island="([a-z0-9-]+)"/g;

/** The island names a rendered page contains (what the browser will hydrate). */
export function islandsIn(html: string): Set<string> {
  return new Set(Array.from(html.matchAll(ISLAND_ATTRIBUTE), (m) => ownName(m[1] as string)));
}

/**
 * Each island name as a string of its own. A match's group of 13 characters or more is a view into
 * the text it was found in (V8's sliced strings): "cookie-notice" would keep the whole page's text
 * alive as long as the page's list of islands, which a build holds until its batch is written, and
 * those texts would fill the render thread's old generation.
 */
const ownNames = new Map<string, string>();
function ownName(name: string): string {
  let own = ownNames.get(name);
  if (own === undefined) {
    own = Array.from(name).join(""); // a new string, not a view
    if (ownNames.size >= 1_000) ownNames.clear(); // the site has a handful; content cannot add any
    ownNames.set(own, own);
  }
  return own;
}
