import type { PrismicDocument } from "@prismicio/client";
import { type ContentNotice, documentNotices } from "../content/index.ts";
import type { RenderMode } from "../render-context.ts";

/**
 * In preview, what editors should fix in the documents a route shows (content-notices.ts): fields
 * shown with a fallback and values of another kind converted or emptied, above the page's content
 * (SiteLayout). Slices left out are shown in place (MissingSlice), so they are not repeated here.
 * Production shows nothing.
 */
export function editorNotes(mode: RenderMode, ...docs: PrismicDocument[]): ContentNotice[] {
  if (mode !== "preview") return [];
  return docs.flatMap((doc) =>
    documentNotices(doc).filter((notice) => notice.kind === "fallback" || notice.kind === "converted"),
  );
}
