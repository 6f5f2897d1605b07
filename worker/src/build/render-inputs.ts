import type { PrismicDocument } from "@prismicio/client";
import { sha256 } from "#storage/content-hash.ts";
import { type DocumentLink, documentHash } from "./document-hash.ts";

/**
 * What a page's render reads, as one hash: the code that renders it (render-code.ts), the documents
 * every page may show (the frame's, `website.shared`) and the page's own document, so a rebuild keeps a
 * stored page whose inputs are unchanged (docs/how-publishing-works.md, "Rebuilds reuse what is
 * unchanged"). A document counts with its own content (`documentHash`) and what the API wrote into
 * each of its links (the target's uid, url, type, tags, language, brokenness, fetched fields), so a
 * page renders again when a page it links to moves, goes or comes back; `documentHash` leaves those
 * out on purpose, for reconcile. Answers the document's hash as well: the walk is the same.
 */
export function routeInputs(
  code: string,
  shared: string,
  doc: PrismicDocument,
  targets?: DocumentLink[],
): { inputs: string; hash: string } {
  const { hash, facts } = documentFacts(doc, targets);
  return { inputs: sha256(`${code}\n${shared}\n${facts}`).slice(0, 32), hash };
}

/** The documents every render of a build may read (the shared documents), as one hash. */
export function sharedInputs(documents: readonly PrismicDocument[]): string {
  const sorted = [...documents].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return sha256(sorted.map((doc) => documentFacts(doc).facts).join("\n"));
}

function documentFacts(doc: PrismicDocument, targets?: DocumentLink[]): { hash: string; facts: string } {
  const links: string[] = [];
  const hash = documentHash(doc, links, targets);
  return { hash, facts: [hash, JSON.stringify(doc.alternate_languages ?? []), ...links].join("\n") };
}
