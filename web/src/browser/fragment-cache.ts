import { createContext, type ReactElement } from "react";

/**
 * The fragment cache's interface and context, apart from its implementation
 * (components/shared-markup.tsx, which renders with react-dom/server): island views import this
 * module, so it lives with the browser code and imports React alone; the browser bundle must not
 * carry React's server renderer. In the browser no cache is in context, so a view renders
 * everything in place, as it does in preview, the slice simulator and tests.
 */
export interface FragmentCache {
  /** The markup `render` makes, or what it made for the same source and key before. */
  markup(source: object, key: string, render: () => string): string | undefined;
  /**
   * The inner markup of the element `render` makes (its children as React renders them inside it,
   * without its own tags), or what it made for the same source and key before. The element's own
   * props may only be ones React writes no attribute for (a `<select>`'s `defaultValue`, which
   * marks the selected `<option>` inside).
   */
  inner(source: object, key: string, render: () => ReactElement): string | undefined;
}

export const FragmentCacheContext = createContext<FragmentCache | undefined>(undefined);
