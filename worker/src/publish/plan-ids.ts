import type { Client, PrismicDocument } from "@prismicio/client";
import { countDependency, listingSlotOf, routesSlotDependency } from "#content/dependencies.ts";
import type { RedirectRule } from "#website/contract.ts";
import { documentHash } from "../build/document-hash.ts";
import type { DependencyIndex, PriorState } from "./dependency-index.ts";
import { fetchByIds } from "./fetch-documents.ts";
import {
  type FetchedDocument,
  fetchedDocument,
  type KnownDocument,
  planPublish,
  routeChange,
} from "./planner.ts";
import type { StepTimer } from "./step-timer.ts";

export interface PlannedPublish {
  plan: ReturnType<typeof planPublish>;
  /** Every document returned at the ref (the changed ones and those fetched along): renders read them first. */
  documents: PrismicDocument[];
  /** The changed documents that are published at the ref. */
  fetchedDocs: Map<string, PrismicDocument>;
  fetched: Map<string, FetchedDocument>;
  /** Ids asked at the ref and not returned: they do not exist there (unpublished or deleted). */
  gone: Set<string>;
  /** The editors' redirects as the index held them before this publish (the redirects stage's start). */
  rules: Map<string, RedirectRule>;
}

/** What a publish of `ids` at `ref` would render and delete, and why (also `pressroom plan`). Reads only. */
/** What planIds fetches for `ids`: the changed ids and `alsoFetch`, once each. */
export function idsAsked(ids: readonly string[], alsoFetch: readonly string[] = []): string[] {
  const changed = new Set(ids);
  return [...new Set([...ids, ...alsoFetch.filter((id) => !changed.has(id))])];
}

export async function planIds(
  client: Client,
  index: DependencyIndex,
  ref: string,
  ids: readonly string[],
  options: {
    /** What the index knew of the ids (read before the master ref, at the same time). */
    prior?: PriorState;
    /** More ids to fetch in the same request(s) as the changed ones, at the same ref. */
    alsoFetch?: readonly string[];
    /** The answer of that fetch, already asked for at `ref` (publish.ts's ref hint). */
    fetchedAlready?: Promise<Map<string, PrismicDocument>>;
    timer?: StepTimer;
  } = {},
): Promise<PlannedPublish> {
  const changed = new Set(ids);
  const asked = [...ids, ...(options.alsoFetch ?? []).filter((id) => !changed.has(id))];
  const { timer } = options;
  const fetchAll = () => fetchByIds(client, ref, [...new Set(asked)]);
  const [all, prior, rules] = await Promise.all([
    // The answer asked for early is used as it is, however long ago it came: asking again would
    // cost a second request, in series after the master ref's (the client only merges requests
    // still in flight). If it failed, the batch is asked once more here.
    options.fetchedAlready ? options.fetchedAlready.catch(fetchAll) : fetchAll(),
    options.prior ?? index.prior(ids, { maxRoutes: 0, isListing: () => true }),
    index.redirectRules(),
  ]);
  timer?.lap("fetch");
  const fetchedDocs = new Map([...all].filter(([id]) => changed.has(id)));
  const gone = new Set(asked.filter((id) => !all.has(id)));
  const { known } = prior;
  const fetched = new Map<string, FetchedDocument>(
    [...fetchedDocs].map(([id, doc]) => [id, fetchedDocument(doc, documentHash(doc))]),
  );
  // Listings of a type the index had not seen among the changed documents (a new document's type),
  // and the parts of divided listings holding them (their slot's).
  const types = new Set(
    [...fetched, ...known].flatMap(([id, d]) => [
      `type:${d.type}`,
      `routes:${d.type}`,
      routesSlotDependency(d.type, listingSlotOf(id)),
      countDependency(d.type),
    ]),
  );
  // Links to a changed id whose route changed: every one of them is rendered (the index read counted
  // them; their names are read now, for these ids only).
  const linking = ids.filter((id) => prior.linkedBy.has(id));
  const relinked = linking
    .filter((id) => routeChange(known.get(id), fetched.get(id)))
    .map((id) => `url:${id}`);
  const unread = [...types].filter((dependency) => !prior.dependents.has(dependency));
  // Links to a changed id that, when rendered, saw it elsewhere than where it is now: read with the
  // index's other reads for the route it had, asked again only for a document that moved.
  const elsewhere = new Map<string, string[]>();
  const moved: (readonly [string, string | null])[] = [];
  for (const id of linking) {
    const now = fetched.get(id)?.route ?? null;
    const read = prior.linkedElsewhere.get(id);
    if (read && read.route === now) {
      if (read.routes.length > 0) elsewhere.set(id, read.routes);
    } else moved.push([id, now]);
  }
  // Both asked at once: a renamed page costs one round trip more than an edit, not two.
  const [more, movedElsewhere] = await Promise.all([
    unread.length + relinked.length > 0 ? index.dependents([...unread, ...relinked]) : new Map(),
    index.linkedElsewhere(moved),
  ]);
  const dependents = new Map([...prior.dependents, ...more]);
  for (const [id, routes] of movedElsewhere) elsewhere.set(id, routes);
  // Editors' redirects go wherever the document they link to is published (the index's rules).
  const redirectsTo = new Map<string, string[]>();
  for (const rule of rules.values())
    if (rule.to.kind === "document" && changed.has(rule.to.id))
      redirectsTo.set(rule.to.id, [...(redirectsTo.get(rule.to.id) ?? []), rule.from]);
  const plan = planPublish({
    changedIds: ids,
    fetched,
    known: known as Map<string, KnownDocument>,
    dependents: (dep) => dependents.get(dep) ?? [],
    linkedElsewhere: (id) => elsewhere.get(id) ?? [],
    redirectsTo: (id) => redirectsTo.get(id) ?? [],
  });
  timer?.lap("plan");
  return { plan, documents: [...all.values()], fetchedDocs, gone, fetched, rules };
}
