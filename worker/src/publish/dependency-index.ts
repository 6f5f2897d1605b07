import type { Redis } from "ioredis";
import {
  countDependency,
  LISTING_SLOTS,
  listingSlotOf,
  routesSlotDependency,
  type SlotRange,
  seesDependency,
} from "#content/dependencies.ts";
import { redisKeys } from "#jobs/catalog.ts";
import { ARGS_CHUNK, chunksOf } from "#jobs/chunks.ts";
import { website } from "#website";
import type { RedirectRule } from "#website/contract.ts";
import type { BuiltRoute } from "../build/full-build.ts";
import type { BundleModules } from "../build/render-thread-bundle.ts";
import { execTransaction, type RedisCommand, type TransactionGuard } from "./chunked-transaction.ts";
import type { KnownDocument } from "./planner.ts";

/**
 * Bump when the layout below changes: a publish that finds another version runs a diff build.
 * 3: links recorded as `url:<id>` (not `doc:`), listings as `type:<type>` without their members.
 * 4: with each link, where it pointed when rendered (`sees:<id>:<route>`).
 * 5: editors' redirects (`redirect` documents) in `docs`, their rules in `redirects`.
 * 6: a page's canonical override (`canonical`) in `docs`, for the sitemap.
 * 7: the ids of the website's frame documents in `meta`, one field per type (`frameDocument:<type>`).
 * 8: listing slots and counts (`routes:<type>@<slot>`, `count:<type>`), parts a listing names
 *    (`part:<route>`), each document's id in `members:<type>@<slot>`.
 */
export const INDEX_VERSION = "8";

/** The meta field holding the id of the frame's document of `type` (the website's `frame`). */
const frameField = (type: string) => `frameDocument:${type}`;

/**
 * `prior` in one round trip. KEYS: the documents' hash, the routes' hash. ARGV[1] is the prefix of the
 * `dep:` keys, ARGV[2] how many routes' entries it may read at most, ARGV[3] the ids, one per line: one
 * argument whatever their number (a spread of tens of thousands of arguments overflows the stack),
 * ARGV[4] their listing slots (`listingSlotOf`), one per line in the same order. The
 * `dep:` keys are made from the prefix: one Redis, not a cluster, as everywhere.
 * Answers { docs, showing, linking, types, typeSets, candidates, entries, elsewhere, slotSets }, where a
 * missing value is false (nil in the reply), `linking` holds counts (SCARD of `url:<id>`), `entries`
 * is false when there were too many routes, `typeSets` holds each type's `type:`, `routes:` and
 * `count:` dependents and `slotSets` each known id's `routes:<type>@<slot>` dependents.
 */
const PRIOR = `
local dep = ARGV[1]
local maxRead = tonumber(ARGV[2])
local ids = {}
for id in string.gmatch(ARGV[3], '[^\\n]+') do ids[#ids + 1] = id end
local slots = {}
for slot in string.gmatch(ARGV[4], '[^\\n]+') do slots[#slots + 1] = slot end
local docs, showing, linking, routes, slotSets = {}, {}, {}, {}, {}
local types, typeSeen, candidates, seen = {}, {}, {}, {}
local n = #ids
for i = 1, n do
  local id = ids[i]
  local doc = redis.call('HGET', KEYS[1], id)
  local route = false
  slotSets[i] = false
  if doc then
    local ok, parsed = pcall(cjson.decode, doc)
    if ok and type(parsed) == 'table' then
      if type(parsed.route) == 'string' and parsed.route ~= '' then route = parsed.route end
      if type(parsed.type) == 'string' then
        slotSets[i] = redis.call('SMEMBERS', dep .. 'routes:' .. parsed.type .. '@' .. slots[i])
        if not typeSeen[parsed.type] then
          typeSeen[parsed.type] = true
          types[#types + 1] = parsed.type
        end
      end
    end
  end
  docs[i] = doc
  routes[i] = route
  showing[i] = redis.call('SMEMBERS', dep .. 'doc:' .. id)
  linking[i] = redis.call('SCARD', dep .. 'url:' .. id)
  for _, r in ipairs(showing[i]) do
    if not seen[r] then seen[r] = true; candidates[#candidates + 1] = r end
  end
end
for i = 1, n do
  local r = routes[i]
  if r and not seen[r] then seen[r] = true; candidates[#candidates + 1] = r end
end
local typeSets = {}
for i, t in ipairs(types) do
  typeSets[i] = {
    redis.call('SMEMBERS', dep .. 'type:' .. t),
    redis.call('SMEMBERS', dep .. 'routes:' .. t),
    redis.call('SMEMBERS', dep .. 'count:' .. t),
  }
end
local entries = false
if #candidates > 0 and #candidates <= maxRead then entries = redis.call('HMGET', KEYS[2], unpack(candidates)) end
local elsewhere = {}
for i = 1, n do
  -- seesDependency's key (#content/dependencies.ts), as linkedElsewhere reads it
  local sees = dep .. 'sees:' .. ids[i] .. ':' .. (routes[i] or '')
  -- A route records url:<id> with exactly one sees:<id>:<route>, so when as many routes saw it at
  -- its route as link to it, none saw it elsewhere: no walk over every route linking to it.
  if linking[i] > 0 and redis.call('SCARD', sees) < linking[i] then
    elsewhere[i] = redis.call('SDIFF', dep .. 'url:' .. ids[i], sees)
  else
    elsewhere[i] = {}
  end
end
return { docs, showing, linking, types, typeSets, candidates, entries, elsewhere, slotSets }
`;

/**
 * How many documents of each type the index holds: KEYS none, ARGV[1] the prefix of the `members:`
 * keys, ARGV[2…] the types. Answers one count per type, the sum of its slots' SCARDs (256 each).
 */
const COUNTS = `
local counts = {}
for i = 2, #ARGV do
  local count = 0
  for slot = 0, ${LISTING_SLOTS - 1} do count = count + redis.call('SCARD', ARGV[1] .. ARGV[i] .. '@' .. slot) end
  counts[#counts + 1] = count
end
return counts
`;

/**
 * Routes beyond `maxRoutes` a prior read may read entries of, for listings among the candidates (it
 * reads before it can leave them out: which routes are listings is the worker's rule, not Lua's).
 */
const LISTINGS_SLACK = 32;

/** What the index keeps of each document: enough to plan, and to list it in the sitemap. */
export interface IndexedDocument extends KnownDocument {
  uid: string | null;
  lang: string;
  first_publication_date: string | null;
  last_publication_date: string | null;
  /**
   * `documentHash` of the document as the API returned it: tells a publication the index has not
   * seen even within the second a publication date resolves to.
   */
  hash: string;
}

export type IndexedRoute = BuiltRoute;

/** One written route at the commit: its new entry (and its JSON, stored as is) and its previous one. */
export interface CommittedEntry {
  route: string;
  entry: IndexedRoute;
  json: string;
  before: IndexedRoute | undefined;
}

/** The code an index was built with (`builtWith`). */
export interface BuiltWith {
  version: string;
  frame: string;
  modules: BundleModules;
}

/**
 * What the index's meta says: the ref it describes (undefined: missing or another version), the ids
 * of the frame's documents, and the site's version it was built with (render-code.ts `siteVersion`;
 * undefined: not recorded, or marked stale by `pressroom build`).
 */
export interface IndexMeta {
  ref: string | undefined;
  frameIds: string[];
  site: string | undefined;
}

/** What the index knew, before a publish, of the ids it changes: read before any content request. */
export interface PriorState {
  /** The changed ids' documents as last indexed. */
  known: Map<string, IndexedDocument>;
  /**
   * Routes that recorded `doc:<changed id>`, and `type:<type>` and `routes:<type>` (listings) for the
   * known documents' types.
   */
  dependents: Map<string, string[]>;
  /**
   * How many routes link to each changed id (`url:<id>`; absent: none). Their names are read only
   * for a document whose route changed (plan-ids.ts): a content-only edit of a page every route's
   * navigation links to reads a count, not the site's routes.
   */
  linkedBy: Map<string, number>;
  /**
   * The entries of the routes this publish will most likely render (the changed documents' current
   * routes and the routes showing them), listings and routes that only link to them left out (those
   * are rendered only when a route changes); empty when there are more than `maxRoutes`.
   */
  entries: Map<string, IndexedRoute>;
  /**
   * `linkedElsewhere` for each id that routes link to, asked with the route the index knows (null
   * for a document it does not know), in the same round trip: a publish asks again only for a
   * document whose route is not that one any more.
   */
  linkedElsewhere: Map<string, { route: string | null; routes: string[] }>;
}

/**
 * The dependency index, in Redis under `<prefix>:index:*`:
 *   meta          hash    version, ref (the master ref the index describes), site (the site's
 *                         version it was built with), frame (render-code.ts), frameDocument:<type>
 *                         (the id of the website's frame document of that type)
 *   modules       string  the render bundle's modules it was built with (JSON: hashes, imports)
 *   routes        hash    route → {key, hash, status, dependencies, documentId, inputs}
 *   docs          hash    document id → {route, type, uid, lang, dates, hash of the document}
 *   dep:<dep>     set     routes that recorded dependency <dep> (doc:<id>, url:<id>, sees:<id>:<route>,
 *                         type:<type>, routes:<type>, routes:<type>@<slot>, count:<type>, part:<route>,
 *                         year:<n>: #content/dependencies.ts)
 *   redirects     hash    redirect document id → its rule (from path, target, status): every
 *                         publish resolves them all (#redirects), so they are read in one HGETALL
 *   members:<type>@<slot>  set  the ids of the documents of <type> in listing slot <slot>
 *                         (`listingSlotOf`): a divided listing's part reads its slots' documents,
 *                         and a type's count is the sum of its slots' sizes
 * Writes go in one MULTI, so a reader never sees half a publish (sent in chunks when large:
 * chunked-transaction.ts).
 */
export class DependencyIndex {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private key(name: string): string {
    return `${this.prefix}:index:${name}`;
  }

  /** The ref the index describes, or undefined when it is missing or of another version. */
  async ref(): Promise<string | undefined> {
    const [version, ref] = await this.redis.hmget(this.key("meta"), "version", "ref");
    return version === INDEX_VERSION && ref ? ref : undefined;
  }

  /** The site's version the index was built with; undefined when not recorded or marked stale. */
  async site(): Promise<string | undefined> {
    return (await this.redis.hget(this.key("meta"), "site")) ?? undefined;
  }

  /**
   * Marks the index as not describing the site in storage (`pressroom build` wrote it behind the
   * worker's back): the next publish or reconcile round runs a diff build, as after a deploy.
   */
  async markStale(): Promise<void> {
    await this.redis.hdel(this.key("meta"), "site");
  }

  /** The meta hash: read whole with a publish's take (take.ts), `parseMeta` reads the answer. */
  get metaKey(): string {
    return this.key("meta");
  }

  /** The meta from HGETALL's answer as a script gets it: field, value, field, value… */
  static parseMeta(answer: readonly string[]): IndexMeta {
    const fields = new Map<string, string>();
    for (let i = 0; i + 1 < answer.length; i += 2) fields.set(answer[i] as string, answer[i + 1] as string);
    const version = fields.get("version");
    const ref = fields.get("ref");
    return {
      ref: version === INDEX_VERSION && ref ? ref : undefined,
      frameIds: website.frame.flatMap((type) => fields.get(frameField(type)) ?? []),
      site: fields.get("site"),
    };
  }

  /**
   * Everything a publish of `ids` can learn from the index before it asks the content API, in one
   * round trip (the PRIOR script): the documents as last indexed, the routes showing them and how many
   * link to them (the linking routes' names are read only when a document moved: plan-ids.ts), those
   * routes' entries (so their documents join the changed ids' request) and, for linked ids, the links
   * that saw them elsewhere than at the route the index knows. Listings' entries are left out, and all
   * entries when more than `maxRoutes` routes show the ids. Why one script and what it costs Redis:
   * docs/decisions/005-index-read-one-script.md.
   */
  async prior(
    ids: readonly string[],
    options: { maxRoutes: number; isListing: (route: string) => boolean },
  ): Promise<PriorState> {
    const [docs, showingSets, linkCounts, types, typeSets, read, values, elsewhereSets, slotSets] =
      (await this.redis.eval(
        PRIOR,
        2,
        this.key("docs"),
        this.key("routes"),
        this.key("dep:"),
        String(options.maxRoutes > 0 ? options.maxRoutes + LISTINGS_SLACK : 0),
        ids.join("\n"),
        ids.map(listingSlotOf).join("\n"),
      )) as [
        (string | null)[],
        string[][],
        number[],
        string[],
        [string[], string[], string[]][],
        string[],
        (string | null)[] | null,
        string[][],
        (string[] | null)[],
      ];
    const known = new Map<string, IndexedDocument>();
    const dependents = new Map<string, string[]>();
    const linkedBy = new Map<string, number>();
    const candidates = new Set<string>();
    ids.forEach((id, i) => {
      const value = docs[i];
      if (value) {
        const doc = JSON.parse(value) as IndexedDocument;
        known.set(id, doc);
        dependents.set(routesSlotDependency(doc.type, listingSlotOf(id)), [...(slotSets[i] ?? [])].sort());
      }
      const showing = [...(showingSets[i] ?? [])].sort();
      dependents.set(`doc:${id}`, showing);
      if ((linkCounts[i] ?? 0) > 0) linkedBy.set(id, linkCounts[i] as number);
      for (const route of showing) candidates.add(route);
    });
    for (const doc of known.values()) if (doc.route) candidates.add(doc.route);
    types.forEach((type, i) => {
      const [members, routes, counting] = typeSets[i] ?? [[], [], []];
      dependents.set(`type:${type}`, [...members].sort());
      dependents.set(`routes:${type}`, [...routes].sort());
      dependents.set(countDependency(type), [...counting].sort());
    });
    // Listings are left out: they are rendered from the index, last.
    const wanted = [...candidates].filter((route) => !options.isListing(route));
    const entries = new Map<string, IndexedRoute>();
    if (wanted.length > 0 && wanted.length <= options.maxRoutes) {
      const byRoute = new Map<string, string | null>(
        values ? read.map((route, i) => [route, values[i] ?? null]) : [],
      );
      // More listings than the script's slack among the candidates: their entries are read apart.
      const unread = wanted.filter((route) => !byRoute.has(route));
      const more = await this.hashValues("routes", unread);
      for (const [i, route] of unread.entries()) byRoute.set(route, more[i] ?? null);
      for (const route of wanted) {
        const value = byRoute.get(route);
        if (value) entries.set(route, JSON.parse(value) as IndexedRoute);
      }
    }
    const linkedElsewhere = new Map<string, { route: string | null; routes: string[] }>();
    ids.forEach((id, i) => {
      if (!linkedBy.has(id)) return;
      linkedElsewhere.set(id, {
        route: known.get(id)?.route ?? null,
        routes: [...(elsewhereSets[i] ?? [])].sort(),
      });
    });
    return { known, dependents, linkedBy, entries, linkedElsewhere };
  }

  /**
   * For each `[id, route now]`, the routes that link to `id` and saw it elsewhere when rendered
   * (`url:<id>` minus `sees:<id>:<route>`), computed by Redis in one pipelined round trip.
   */
  async linkedElsewhere(
    targets: readonly (readonly [string, string | null])[],
  ): Promise<Map<string, string[]>> {
    const found = new Map<string, string[]>();
    if (targets.length === 0) return found;
    const pipeline = this.redis.pipeline();
    for (const [id, route] of targets)
      pipeline.sdiff(this.key(`dep:url:${id}`), this.key(`dep:${seesDependency(id, route)}`));
    const answers = (await pipeline.exec()) ?? [];
    targets.forEach(([id], i) => {
      const [error, value] = answers[i] ?? [null, []];
      if (error) throw error;
      const routes = ((value as string[] | undefined) ?? []).sort();
      if (routes.length > 0) found.set(id, routes);
    });
    return found;
  }

  /** The calendar years routes recorded (`year:<n>`, #content/dependencies.ts) that some route still shows. */
  async recordedYears(): Promise<number[]> {
    const years: number[] = [];
    const prefix = this.key("dep:year:");
    let cursor = "0";
    do {
      const [next, keys] = await this.redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
      cursor = next;
      for (const key of keys) {
        const year = Number(key.slice(prefix.length));
        if (Number.isInteger(year) && (await this.redis.scard(key)) > 0) years.push(year);
      }
    } while (cursor !== "0");
    return years.sort((a, b) => a - b);
  }

  /** The ids of the frame's documents, so a publish can fetch them with the changed ids in one request. */
  async frameIds(): Promise<string[]> {
    if (website.frame.length === 0) return [];
    const ids = await this.redis.hmget(this.key("meta"), ...website.frame.map(frameField));
    return ids.flatMap((id) => id ?? []);
  }

  async documents(ids: readonly string[]): Promise<Map<string, IndexedDocument>> {
    const found = new Map<string, IndexedDocument>();
    if (ids.length === 0) return found;
    const values = await this.hashValues("docs", ids);
    values.forEach((value, i) => {
      if (value) found.set(ids[i] as string, JSON.parse(value) as IndexedDocument);
    });
    return found;
  }

  /** How many documents of each of `types` the index holds, in one round trip (the COUNTS script). */
  async counts(types: readonly string[]): Promise<Map<string, number>> {
    if (types.length === 0) return new Map();
    const counts = (await this.redis.eval(COUNTS, 0, this.key("members:"), ...types)) as number[];
    return new Map(types.map((type, i) => [type, counts[i] ?? 0]));
  }

  /** The ids of the documents of `type` in `slots`, as the index holds them. */
  async membersIn(type: string, slots: SlotRange): Promise<string[]> {
    const keys: string[] = [];
    for (let slot = slots.from; slot < slots.to; slot++) keys.push(this.memberKey(type, slot));
    return keys.length > 0 ? await this.redis.sunion(...keys) : [];
  }

  private memberKey(type: string, slot: number): string {
    return this.key(`members:${type}@${slot}`);
  }

  /** The editors' redirects at the index's ref: redirect document id → its rule. */
  async redirectRules(): Promise<Map<string, RedirectRule>> {
    const all = await this.redis.hgetall(this.key("redirects"));
    return new Map(Object.entries(all).map(([id, value]) => [id, JSON.parse(value) as RedirectRule]));
  }

  /** How many documents the index holds (every document published at its ref). */
  async documentCount(): Promise<number> {
    return this.redis.hlen(this.key("docs"));
  }

  /**
   * Every document the index holds (a fan-out's listings read them), by HSCAN, 1,000 at a time,
   * each handed to `each` as it comes: one HGETALL of 100,000 documents is a 40 MB reply that the
   * client buffers (RSS +122 MB for its read against +39 MB, measured on a 100,000-field hash), and
   * the caller keeps only what it makes of each. The index does not change meanwhile: the reader
   * holds the publish lock.
   */
  async eachDocument(each: (id: string, doc: IndexedDocument) => void): Promise<void> {
    let cursor = "0";
    do {
      const [next, flat] = await this.redis.hscan(this.key("docs"), cursor, "COUNT", 1000);
      cursor = next;
      for (let i = 0; i + 1 < flat.length; i += 2)
        each(flat[i] as string, JSON.parse(flat[i + 1] as string) as IndexedDocument);
    } while (cursor !== "0");
  }

  async routes(routes: readonly string[]): Promise<Map<string, IndexedRoute>> {
    const found = new Map<string, IndexedRoute>();
    if (routes.length === 0) return found;
    const values = await this.hashValues("routes", routes);
    values.forEach((value, i) => {
      if (value) found.set(routes[i] as string, JSON.parse(value) as IndexedRoute);
    });
    return found;
  }

  /** HMGET of `fields` of the index's hash `name`, in chunks pipelined in one round trip. */
  private async hashValues(name: string, fields: readonly string[]): Promise<(string | null)[]> {
    if (fields.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const chunk of chunksOf(fields)) pipeline.hmget(this.key(name), ...chunk);
    const values: (string | null)[] = [];
    for (const [error, answer] of (await pipeline.exec()) ?? []) {
      if (error) throw error;
      for (const value of answer as (string | null)[]) values.push(value);
    }
    return values;
  }

  /** Every route the index holds, without its entry (reconcile's sample picks from them). */
  async routeNames(): Promise<string[]> {
    return this.redis.hkeys(this.key("routes"));
  }

  /** Routes that recorded each dependency. */
  async dependents(dependencies: readonly string[]): Promise<Map<string, string[]>> {
    const unique = [...new Set(dependencies)];
    const pipeline = this.redis.pipeline();
    for (const dependency of unique) pipeline.smembers(this.key(`dep:${dependency}`));
    const results = (await pipeline.exec()) ?? [];
    return new Map(
      unique.map((dependency, i) => [dependency, ((results[i]?.[1] as string[] | undefined) ?? []).sort()]),
    );
  }

  /**
   * Applies a publish: routes rendered (with their new dependencies), routes deleted, documents
   * changed or gone, and the ref. `previous` holds the old entries of every route written or
   * deleted, so their old reverse dependencies are removed.
   */
  async commit(change: {
    ref: string;
    /**
     * The routes written with their new entries: held (`previous` has their old ones), or read a chunk
     * at a time with their old ones while the transaction is sent (a large fan-out's: fan-out-entries.ts).
     */
    written: ReadonlyMap<string, IndexedRoute> | AsyncIterable<readonly CommittedEntry[]>;
    deleted: readonly string[];
    previous: ReadonlyMap<string, IndexedRoute>;
    documents: ReadonlyMap<string, IndexedDocument | null>;
    /** Applied only while the guard holds (the publish is still the newest: generation.ts). */
    guard?: TransactionGuard;
  }): Promise<void> {
    const { written, previous } = change;
    const chunks =
      Symbol.asyncIterator in written
        ? written
        : [
            [...written].map(([route, entry]) => ({
              route,
              entry,
              json: JSON.stringify(entry),
              before: previous.get(route),
            })),
          ];
    await execTransaction(this.redis, this.commitCommands({ ...change, chunks }), undefined, change.guard);
  }

  private async *commitCommands(change: {
    ref: string;
    chunks: Iterable<readonly CommittedEntry[]> | AsyncIterable<readonly CommittedEntry[]>;
    deleted: readonly string[];
    previous: ReadonlyMap<string, IndexedRoute>;
    documents: ReadonlyMap<string, IndexedDocument | null>;
  }): AsyncGenerator<RedisCommand> {
    const routesKey = this.key("routes");
    const docsKey = this.key("docs");
    // Only the dependencies that changed are touched: the sitemap depends on every document, and
    // removing and re-adding all of them on every publish cost 20,000 commands for nothing.
    for (const route of change.deleted) {
      for (const dependency of change.previous.get(route)?.dependencies ?? [])
        yield ["srem", this.key(`dep:${dependency}`), route];
      yield ["hdel", routesKey, route];
    }
    for await (const chunk of change.chunks) {
      for (const { route, entry, before: old } of chunk) {
        const before = new Set(old?.dependencies ?? []);
        const now = new Set(entry.dependencies);
        for (const dependency of before)
          if (!now.has(dependency)) yield ["srem", this.key(`dep:${dependency}`), route];
        for (const dependency of now)
          if (!before.has(dependency)) yield ["sadd", this.key(`dep:${dependency}`), route];
      }
      yield* hsetInGroups(
        routesKey,
        chunk.map(({ route, json }) => [route, json]),
      );
    }
    yield* hsetInGroups(
      docsKey,
      mapEntries(change.documents, (doc) => (doc ? JSON.stringify(doc) : undefined)),
    );
    const gone = [...change.documents].flatMap(([id, doc]) => (doc ? [] : [id]));
    for (const chunk of chunksOf(gone, GROUP)) yield ["hdel", docsKey, ...chunk];
    // Each changed id in its type's slot, and in no other type's (its type may have changed).
    for (const [id, doc] of change.documents) {
      const slot = listingSlotOf(id);
      for (const type of website.types)
        if (type !== doc?.type) yield ["srem", this.memberKey(type, slot), id];
      if (doc) yield ["sadd", this.memberKey(doc.type, slot), id];
    }
    // Editors' redirects: a changed redirect document's rule replaced, any other changed id's dropped.
    const redirectsKey = this.key("redirects");
    yield* hsetInGroups(
      redirectsKey,
      mapEntries(change.documents, (doc) => (doc?.redirect ? JSON.stringify(doc.redirect) : undefined)),
    );
    const notRedirects = [...change.documents].flatMap(([id, doc]) => (doc?.redirect ? [] : [id]));
    for (let i = 0; i < notRedirects.length; i += GROUP)
      yield ["hdel", redirectsKey, ...notRedirects.slice(i, i + GROUP)];
    yield ["hset", this.key("meta"), "version", INDEX_VERSION, "ref", change.ref];
    yield* this.frameCommands(change.documents);
    // The publish rendered every route left unsettled before it (publish.ts): storage and index agree.
    yield ["del", redisKeys(this.prefix).unsettledRoutes];
  }

  /** Records the id of each frame document among `documents` (a publish's changed ones, a build's all). */
  private *frameCommands(documents: ReadonlyMap<string, IndexedDocument | null>): Generator<RedisCommand> {
    for (const [id, doc] of documents)
      if (doc && website.frame.includes(doc.type)) yield ["hset", this.key("meta"), frameField(doc.type), id];
  }

  /**
   * The code the index was built with: the site's version, its frame and the render bundle's
   * modules (render-code.ts, render-thread-bundle.ts); undefined when not recorded.
   */
  async builtWith(): Promise<BuiltWith | undefined> {
    const [[site, frame], modules] = await Promise.all([
      this.redis.hmget(this.key("meta"), "site", "frame"),
      this.redis.get(this.key("modules")),
    ]);
    if (!site || !frame || !modules) return undefined;
    return { version: site, frame, modules: JSON.parse(modules) as BundleModules };
  }

  /**
   * Replaces the whole index (after a full or diff build), built with the code `site`. `routes` and
   * `documents` are read once, as the commands are sent (a build's are read back from its
   * temporary files a chunk at a time: diff-build.ts).
   */
  async replace(
    ref: string,
    routes:
      | Iterable<[route: string, entry: IndexedRoute]>
      | AsyncIterable<[route: string, entry: IndexedRoute]>,
    documents: Iterable<[id: string, doc: IndexedDocument]>,
    site: BuiltWith,
    guard?: TransactionGuard,
  ): Promise<void> {
    await execTransaction(this.redis, this.replaceCommands(ref, routes, documents, site), undefined, guard);
  }

  private async *replaceCommands(
    ref: string,
    routes:
      | Iterable<[route: string, entry: IndexedRoute]>
      | AsyncIterable<[route: string, entry: IndexedRoute]>,
    documents: Iterable<[id: string, doc: IndexedDocument]>,
    site: BuiltWith,
  ): AsyncGenerator<RedisCommand> {
    yield ["del", this.key("routes"), this.key("docs"), this.key("meta"), this.key("redirects")];
    yield ["set", this.key("modules"), JSON.stringify(site.modules)];
    // Every dependency's set, deleted before the new ones are added: found by SCAN a page at a time
    // (the transaction's commands wait for EXEC, so it sees the index being replaced), not KEYS: at
    // 100,000 routes there are hundreds of thousands, and KEYS would hold Redis for the whole
    // keyspace and this process would hold every name.
    for (const stale of [this.key("dep:"), this.key("members:")]) {
      let cursor = "0";
      do {
        const [next, keys] = await this.redis.scan(cursor, "MATCH", `${stale}*`, "COUNT", 1000);
        cursor = next;
        for (let i = 0; i < keys.length; i += GROUP) yield ["del", ...keys.slice(i, i + GROUP)];
      } while (cursor !== "0");
    }
    // One pass over the routes (a build reads them back from its temporary file): their entries,
    // GROUP a command, and each dependency's routes, ARGS_CHUNK routes at a time (SADD adds to what
    // the set holds): at 100,000 routes of ~30 dependencies each, a reverse map of every route
    // holds 3 million references.
    const routesKey = this.key("routes");
    let fields: string[] = [];
    let reverse = new Map<string, string[]>();
    let held = 0;
    const members = () => {
      const commands: RedisCommand[] = [];
      for (const [dependency, list] of reverse)
        commands.push(["sadd", this.key(`dep:${dependency}`), ...list]);
      reverse = new Map();
      held = 0;
      return commands;
    };
    for await (const [route, entry] of routes) {
      fields.push(route, JSON.stringify(entry));
      if (fields.length >= GROUP * 2) {
        yield ["hset", routesKey, ...fields];
        fields = [];
      }
      for (const dependency of entry.dependencies) {
        const list = reverse.get(dependency);
        if (list) list.push(route);
        else reverse.set(dependency, [route]);
      }
      if (++held >= ARGS_CHUNK) yield* members();
    }
    if (fields.length > 0) yield ["hset", routesKey, ...fields];
    yield* members();
    // The documents' fields, and their ids by listing slot, SLOTTED_AT_ONCE documents at a time:
    // never every id at once (the documents are read back from a build's temporary file).
    let slotted = new Map<string, string[]>();
    let chunk: [string, IndexedDocument][] = [];
    const slottedCommands = function* (): Generator<RedisCommand> {
      for (const [key, ids] of slotted) yield ["sadd", key, ...ids];
      slotted = new Map();
    };
    for (const document of documents) {
      chunk.push(document);
      if (chunk.length < SLOTTED_AT_ONCE) continue;
      yield* hsetsInGroups(this.documentFields(chunk, slotted));
      yield* slottedCommands();
      chunk = [];
    }
    yield* hsetsInGroups(this.documentFields(chunk, slotted));
    yield* slottedCommands();
    yield [
      "hset",
      this.key("meta"),
      "version",
      INDEX_VERSION,
      "ref",
      ref,
      "site",
      site.version,
      "frame",
      site.frame,
    ];
    // The build wrote every unsettled route again (diff-build.ts): storage and index agree.
    yield ["del", redisKeys(this.prefix).unsettledRoutes];
  }

  /**
   * Each document's fields in one pass: its entry, its redirect rule, its id when of a frame type;
   * its id added to `members`, under its type's slot's key.
   */
  private *documentFields(
    documents: Iterable<[id: string, doc: IndexedDocument]>,
    members: Map<string, string[]>,
  ): Generator<[key: string, field: string, value: string]> {
    const docsKey = this.key("docs");
    const redirectsKey = this.key("redirects");
    const metaKey = this.key("meta");
    for (const [id, doc] of documents) {
      const memberKey = this.memberKey(doc.type, listingSlotOf(id));
      const ids = members.get(memberKey);
      if (ids) ids.push(id);
      else members.set(memberKey, [id]);
      yield [docsKey, id, JSON.stringify(doc)];
      if (doc.redirect) yield [redirectsKey, id, JSON.stringify(doc.redirect)];
      if (website.frame.includes(doc.type)) yield [metaKey, frameField(doc.type), id];
    }
  }
}

/** Documents whose ids a rebuilt index adds to their slots' `members:` sets in one go (about 40 a set at once). */
const SLOTTED_AT_ONCE = 10_000;

/** Fields per HSET (and keys per DEL): fewer, larger commands, each still small. */
const GROUP = 100;

/** HSETs of `fields` of the hash `key` in groups of GROUP; a field whose value is undefined is skipped. */
function* hsetInGroups(key: string, fields: Iterable<[string, string | undefined]>): Generator<RedisCommand> {
  function* ofKey(): Generator<[string, string, string]> {
    for (const [field, value] of fields) if (value !== undefined) yield [key, field, value];
  }
  yield* hsetsInGroups(ofKey());
}

/** HSETs of fields of several hashes, each hash's in groups of GROUP, made as the fields arrive. */
function* hsetsInGroups(
  fields: Iterable<[key: string, field: string, value: string]>,
): Generator<RedisCommand> {
  const groups = new Map<string, string[]>();
  for (const [key, field, value] of fields) {
    const group = groups.get(key) ?? [];
    if (group.length === 0) groups.set(key, group);
    group.push(field, value);
    if (group.length < GROUP * 2) continue;
    yield ["hset", key, ...group];
    group.length = 0;
  }
  for (const [key, group] of groups) if (group.length > 0) yield ["hset", key, ...group];
}

/** The entries of `map`, each value turned into a string when the generator reaches it. */
function* mapEntries<T>(
  map: ReadonlyMap<string, T>,
  value: (item: T) => string | undefined,
): Generator<[string, string | undefined]> {
  for (const [key, item] of map) yield [key, value(item)];
}
