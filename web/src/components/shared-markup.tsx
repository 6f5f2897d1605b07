import { type ReactNode, useContext } from "react";
import { renderToString } from "react-dom/server";
import { type FragmentCache, FragmentCacheContext } from "../browser/fragment-cache.ts";

/**
 * Markup many pages share (the footer, the cookie notice, the navigation), rendered once per
 * document it shows and kept for the next page: a build would otherwise render the same frame for
 * every page. A fragment is kept per `source` (the settings document object the render read: a new
 * publish reads a new object, so nothing outlives its content) and per `key`, which must name
 * everything else the markup depends on (the current path's entry, the copyright year).
 * Dependencies are recorded where documents are read (recording-source.ts), so caching leaves them
 * intact. A fragment whose render emitted anything outside its own markup (React hoists an eager
 * image's preload into `<head>`) is never kept. Without a cache in context (preview, the slice
 * simulator, tests) everything renders in place; tests/integration/shared-markup.test.ts checks that
 * every route renders the same bytes either way.
 */
export type { FragmentCache } from "../browser/fragment-cache.ts";
export { FragmentCacheContext } from "../browser/fragment-cache.ts";

const UNCACHEABLE = Symbol("uncacheable");

/** A cache for one render thread or one publish: fragments live as long as their source object. */
export function createFragmentCache(): FragmentCache {
  const bySource = new WeakMap<object, Map<string, string | typeof UNCACHEABLE>>();
  const cache: FragmentCache = {
    inner(source, key, render) {
      return cache.markup(source, `inner:${key}`, () => {
        const html = renderToString(render());
        // A hoisted resource first (see above): kept whole, so that it is never cached.
        if (html.startsWith("<link")) return html;
        // React escapes ">" in attribute values, so the first ">" ends the element's start tag.
        return html.slice(html.indexOf(">") + 1, html.lastIndexOf("</"));
      });
    },
    markup(source, key, render) {
      let fragments = bySource.get(source);
      if (!fragments) {
        fragments = new Map();
        bySource.set(source, fragments);
      }
      let found = fragments.get(key);
      if (found === undefined) {
        const html = render();
        // React writes a preload (or another hoisted resource) before the markup when the fragment
        // has an eager image: that belongs in the page's <head>, which only rendering in place gives.
        found = html.startsWith("<link") ? UNCACHEABLE : html;
        fragments.set(key, found);
      }
      return found === UNCACHEABLE ? undefined : found;
    },
  };
  return cache;
}

/** The inner markup of `children` from the cache in context, or undefined to render them in place. */
export function useSharedMarkup(source: object, key: string, children: () => ReactNode): string | undefined {
  const cache = useContext(FragmentCacheContext);
  return cache?.markup(source, key, () => renderToString(children()));
}

type Tag = "footer" | "nav" | "div";

/**
 * `<as {...attributes}>{children}</as>`, its inner markup rendered once per source and key when a
 * fragment cache is in context. The children must be elements (React writes text separators
 * between adjacent text nodes, which a fragment rendered alone would not share with its page).
 */
export function SharedMarkup({
  as: Element,
  source,
  cacheKey,
  children,
  ...attributes
}: {
  as: Tag;
  source: object;
  cacheKey: string;
  children: () => ReactNode;
  className?: string;
  "aria-label"?: string;
  "aria-labelledby"?: string;
}): ReactNode {
  const html = useSharedMarkup(source, `${Element}:${cacheKey}`, children);
  return html === undefined ? (
    <Element {...attributes}>{children()}</Element>
  ) : (
    // biome-ignore lint/security/noDangerouslySetInnerHtml: markup React rendered from the same children
    <Element {...attributes} dangerouslySetInnerHTML={{ __html: html }} />
  );
}
