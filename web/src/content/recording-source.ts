import type { PrismicDocument } from "@prismicio/client";
import {
  countDependency,
  inSlots,
  listingSlotOf,
  routesSlotDependency,
  seesDependency,
  yearDependency,
} from "#content/dependencies.ts";
import { canonicalTargetOf } from "../lib/page-seo.ts";
import type { ContentSource } from "./content-source.ts";
import { documentLinks } from "./document-links.ts";
import { normalizeDocument } from "./normalize.ts";

export interface RecordingOptions {
  /**
   * The render shows only the listed documents' routes and dates (the
   * sitemap): their links are not recorded, and a listing is recorded as
   * `routes:<type>` (re-rendered when a member joins, leaves, moves or changes
   * its lastmod day), not `type:<type>` (when a member's content changes too).
   */
  routesOnly?: boolean;
}

export interface RecordingSource {
  source: ContentSource;
  /** `doc:<id>`, `url:<id>`, `type:<type>`, `routes:<type>`(`@<slot>`) and `count:<type>` read so far, sorted and deduplicated. */
  dependencies(): string[];
}

/**
 * Wraps a source so that a render's reads become its dependencies (the
 * dependency index, docs/architecture.md), at the grain of what the render can show:
 *   - `doc:<id>`: the render showed the document's data — every document
 *     returned by id or uid (the route's own, settings, an embedded price
 *     list), and link targets whose data the link carries (fetched fields);
 *   - `url:<id>`: the render only linked to it (hyperlinks, link fields,
 *     navigation items): its markup changes only when the target's route does
 *     (renamed, unpublished, first published, type changed);
 *     With it, `sees:<id>:<route>`: where the link pointed when the render ran ("" when broken),
 *     since that can differ from what the index knows of the target (a webhook not arrived yet: the
 *     publish read a newer ref); the planner re-renders the linking routes that saw anything else.
 *     The sitemap (`routesOnly`) links only to the targets of pages' canonical overrides.
 *   - `type:<type>` (`routes:<type>` for the sitemap, `routesOnly`): a listing
 *     of every document of the type. Its members are not `doc:` dependencies:
 *     the planner re-renders a listing when a member joins, leaves, moves or
 *     changes a field the listing shows (planner.ts).
 *     Asked by listing slot (a divided sitemap's part), `routes:<type>@<slot>` for each slot: re-rendered
 *     only for a member in those slots. The documents handed out are those slots' only.
 *   - `count:<type>`: the render showed how many documents of the type there are (what divides the
 *     sitemap): re-rendered when one joins or leaves.
 *   - `year:<n>`: the render showed the copyright year (every render that reads
 *     settings has the footer); re-rendered when the year turns (year-turn.ts).
 * A document both shown and linked is recorded once, as `doc:`.
 * Recording at the source, not in components, means no component can forget it. For the same
 * reason every document handed out is normalised to its model here (normalize.ts): absent fields
 * read as empty ones.
 */
export function recordingSource(source: ContentSource, options: RecordingOptions = {}): RecordingSource {
  const routesOnly = options.routesOnly ?? false;
  const shown = new Set<string>();
  const linked = new Map<string, string>();
  const types = new Set<string>();
  const other = new Set<string>();
  const links = (doc: PrismicDocument) => {
    // The sitemap shows no link, but leaves out a page canonical to another document: where that
    // document is (or that it is gone) decides, so the override's target is linked.
    const found = routesOnly ? canonicalLinks(doc) : documentLinks(doc);
    if (!found) return;
    for (const id of found.shown) shown.add(id);
    for (const [id, route] of found.pointsTo) linked.set(id, route);
  };
  // What the render gets is the document normalised to its model (normalize.ts); what it depends
  // on is read from the document as the API sent it.
  const record = <T extends PrismicDocument | undefined>(doc: T): T => {
    if (!doc) return doc;
    shown.add(doc.id);
    links(doc);
    return normalizeDocument(doc);
  };
  return {
    source: {
      // Every render reading settings shows the layout's footer, and its copyright year.
      getSettings: async () => {
        const settings = record(await source.getSettings());
        other.add(yearDependency());
        return settings;
      },
      getPageByUID: async (uid) => record(await source.getPageByUID(uid)),
      getPriceListByUID: async (uid) => record(await source.getPriceListByUID(uid)),
      getByID: async (id) => record(await source.getByID(id)),
      getAllByType: async (type, slots) => {
        const documents = await source.getAllByType(type, slots);
        if (routesOnly && slots)
          for (let slot = slots.from; slot < slots.to; slot++) types.add(routesSlotDependency(type, slot));
        else types.add(`${routesOnly ? "routes" : "type"}:${type}`);
        // A source may answer more than the slots asked for: only theirs are handed out.
        const wanted = (doc: PrismicDocument) => slots === undefined || inSlots(listingSlotOf(doc.id), slots);
        // The sitemap reads routes and dates only (its listings hold stubs without data), each
        // document as it is read: a build's are read from its temporary file, never held at once.
        if (routesOnly)
          return {
            *[Symbol.iterator]() {
              for (const doc of documents) {
                if (!wanted(doc)) continue;
                links(doc);
                yield doc;
              }
            },
          };
        return Array.from(documents)
          .filter(wanted)
          .map((doc) => {
            links(doc);
            return normalizeDocument(doc);
          });
      },
      countByType: async (type) => {
        other.add(countDependency(type));
        return source.countByType(type);
      },
    },
    dependencies: () =>
      [
        ...[...shown].map((id) => `doc:${id}`),
        ...[...linked]
          .filter(([id]) => !shown.has(id))
          .flatMap(([id, route]) => [`url:${id}`, seesDependency(id, route)]),
        ...types,
        ...other,
      ].sort(),
  };
}

function canonicalLinks(doc: PrismicDocument) {
  const target = canonicalTargetOf(doc);
  if (!target || !("document" in target)) return undefined;
  const { canonical_url } = doc.data as { canonical_url?: unknown };
  return documentLinks({ data: { canonical_url } } as unknown as PrismicDocument);
}
