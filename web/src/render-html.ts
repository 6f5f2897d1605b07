import type { ReactElement } from "react";
import { renderToString } from "react-dom/server";

/**
 * A complete HTML document from a React tree. `renderToString`, not
 * `renderToStaticMarkup`: islands hydrate from this HTML, and hydration needs
 * the text-node separators only renderToString writes. (Both cost about the
 * same; see docs/design.md for the measurement.)
 */
export function renderHtml(element: ReactElement): string {
  return `<!doctype html>${renderToString(element)}`;
}
