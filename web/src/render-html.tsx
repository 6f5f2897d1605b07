import type { ReactElement } from "react";
import { renderToString } from "react-dom/server";
import { type FragmentCache, FragmentCacheContext } from "./components/shared-markup.tsx";

/**
 * A complete HTML document from a React tree. `renderToString`, not `renderToStaticMarkup`: islands
 * hydrate from this HTML, and hydration needs the text-node separators only renderToString writes
 * (docs/design.md, "Rendering cost"). With `fragments`, markup that many pages share is rendered once
 * (components/shared-markup.tsx).
 */
export function renderHtml(element: ReactElement, fragments?: FragmentCache): string {
  const tree = fragments ? (
    <FragmentCacheContext.Provider value={fragments}>{element}</FragmentCacheContext.Provider>
  ) : (
    element
  );
  return `<!doctype html>${renderToString(tree)}`;
}
