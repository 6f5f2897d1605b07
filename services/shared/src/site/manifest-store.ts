/**
 * The build manifest in storage: a small root (`.pressroom/manifest.json`: the ref, assets,
 * redirects, aliases, and which route shards are current) and route shards
 * (`.pressroom/manifest/<shard>.<hash>.json`, named by their bytes, never rewritten), each holding
 * the routes whose hash falls in it. A publish rewrites only the shards of the routes it changed,
 * then the root: what it writes does not grow with the site. The root is the commit point; the
 * shards it replaced are deleted after it. A reader that finds a shard gone (deleted under it by a
 * later publish) reads the root again, once. A manifest of version 1 (every route in the root) is
 * still read, as one shard; the next write stores version 2.
 */
import { type SiteStore, sha256 } from "#storage";
import {
  type BuildManifest,
  CACHE_CONTROL,
  MANIFEST_KEY,
  MANIFEST_SHARDS_PREFIX,
  MANIFEST_VERSION,
  type ManifestRoute,
} from "./manifest.ts";

/** The most routes a shard holds on average once a build chose the shard count (~85 KB of JSON). */
export const ROUTES_PER_SHARD = 512;
/** Shards read or written at once. */
const PARALLEL = 8;

/** The manifest without its routes: what `.pressroom/manifest.json` holds. */
export interface ManifestRoot extends Omit<BuildManifest, "routes" | "version" | "shards" | "shardCount"> {
  version: typeof MANIFEST_VERSION;
  /** How many shards routes are hashed into: a power of two a build chooses and publishes keep. */
  shardCount: number;
  /** Shard name → the first 16 hex digits of the sha256 of its bytes; a shard with no route is absent. */
  shards: Record<string, string>;
}

/** The root as read; a version 1 manifest carries its routes (`legacyRoutes`): its one shard. */
export interface ManifestHead extends ManifestRoot {
  legacyRoutes?: Record<string, ManifestRoute>;
  /** The root object's ETag, when storage gave one. */
  etag?: string;
}

/** The fields a publish sets beside its routes (redirects, aliases): shared by the root and a whole manifest. */
export type ManifestFields = Omit<BuildManifest, "routes" | "version" | "shards" | "shardCount">;

export interface ManifestUpdate {
  ref: string;
  written: ReadonlyMap<string, ManifestRoute>;
  deleted: Iterable<string>;
  /** Sets the root's other fields (the redirects served, the aliases). */
  edit?: (fields: ManifestFields) => void;
}

/**
 * An update whose written routes' entries are asked for a few shards at a time, so that a publish of
 * every route (a fan-out) never holds them all: `routes` names every route written or deleted;
 * `entries` answers those written among the routes asked (one it leaves out is deleted).
 */
export interface ManifestStreamedUpdate extends Pick<ManifestUpdate, "ref" | "edit"> {
  routes: readonly string[];
  entries: (routes: readonly string[]) => Promise<ReadonlyMap<string, ManifestRoute>>;
}

/** The fewest shards (a power of two) that keep `routes` at ROUTES_PER_SHARD a shard or fewer on average. */
export function shardCountFor(routes: number): number {
  let count = 1;
  while (routes > count * ROUTES_PER_SHARD) count *= 2;
  return count;
}

/** The shard `route` falls in among `count`: stable, hex, as wide as the largest name. */
export function shardOf(route: string, count: number): string {
  const index = Number.parseInt(sha256(route).slice(0, 8), 16) % count;
  return index.toString(16).padStart(Math.max(1, (count - 1).toString(16).length), "0");
}

export const shardKey = (name: string, hash: string) => `${MANIFEST_SHARDS_PREFIX}${name}.${hash}.json`;

/** The root, or undefined when there is none or it cannot be read (then there is "no manifest"). */
export async function readManifestRoot(store: SiteStore): Promise<ManifestHead | undefined> {
  const object = await store.get(MANIFEST_KEY);
  const root = object && parseRoot(object.body);
  return root && { ...root, etag: object.etag };
}

/**
 * The whole manifest: the root and every shard it names. Undefined when there is none, or it cannot
 * be read (a shard still missing after the root was read again): a build then trusts storage alone.
 */
export async function readManifest(store: SiteStore): Promise<BuildManifest | undefined> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const head = await readManifestRoot(store);
    if (!head) return undefined;
    const { legacyRoutes, etag: _, ...root } = head;
    if (legacyRoutes) return { ...root, routes: legacyRoutes };
    const shards = await readShards(store, root.shards);
    if (shards) return { ...root, routes: Object.assign({}, ...shards.values()) };
  }
  return undefined;
}

/** The named shards' routes by name; undefined when one is missing or unreadable. */
export async function readShards(
  store: SiteStore,
  shards: Record<string, string>,
): Promise<Map<string, Record<string, ManifestRoute>> | undefined> {
  const read = new Map<string, Record<string, ManifestRoute>>();
  let missing = false;
  await eachLimit(Object.entries(shards), async ([name, hash]) => {
    const routes = missing ? undefined : parseShard((await store.get(shardKey(name, hash)))?.body);
    if (routes) read.set(name, routes);
    else missing = true;
  });
  return missing ? undefined : read;
}

/**
 * Writes a whole manifest (a build): every shard `previous` does not already name, then the root
 * (after `beforeCommit`, which may throw to leave the stored manifest as it was), then deletes the
 * shards no longer named: those of `previous`, and any other left by a writer that stopped before
 * it could delete (older than an hour, so a concurrent writer's fresh shard is never one).
 */
export async function writeManifest(
  store: SiteStore,
  manifest: BuildManifest,
  options: { previous?: Pick<BuildManifest, "shards">; beforeCommit?: () => Promise<void> } = {},
): Promise<ManifestRoot> {
  const shardCount = shardCountFor(Object.keys(manifest.routes).length);
  const groups = new Map<string, Record<string, ManifestRoute>>();
  for (const [route, entry] of Object.entries(manifest.routes)) {
    const name = shardOf(route, shardCount);
    const group = groups.get(name) ?? {};
    group[route] = entry;
    groups.set(name, group);
  }
  const stored = new Set(keysOf(options.previous?.shards));
  const shards: Record<string, string> = {};
  await eachLimit([...groups], async ([name, routes]) => {
    shards[name] = await putShard(store, name, routes, stored);
  });
  const root = rootOf(manifest, shardCount, shards);
  await options.beforeCommit?.();
  await putJson(store, MANIFEST_KEY, JSON.stringify(root));
  const named = new Set(keysOf(root.shards));
  const hourAgo = Date.now() - 3_600_000;
  const stale = new Set([...stored].filter((key) => !named.has(key)));
  for await (const object of store.list(MANIFEST_SHARDS_PREFIX))
    if (!named.has(object.key) && object.lastModified.getTime() < hourAgo) stale.add(object.key);
  await eachLimit([...stale], (key) => store.delete(key));
  return root;
}

/**
 * A publish's commit: reads the shards of the routes written or deleted, writes those that changed,
 * PARALLEL shards at a time (with their routes' entries, when streamed), then the root, then deletes
 * the shards the root no longer names. `head` is the root as read earlier in the publish (read again
 * when a shard it names is gone; a version 1 manifest, or none, is written whole). Throws when a
 * shard is still missing after the root was read again.
 */
export async function updateManifest(
  store: SiteStore,
  head: ManifestHead | undefined,
  given: ManifestUpdate | ManifestStreamedUpdate,
): Promise<ManifestRoot> {
  const update: ManifestStreamedUpdate =
    "entries" in given
      ? given
      : {
          ref: given.ref,
          ...(given.edit ? { edit: given.edit } : {}),
          routes: [...given.written.keys(), ...given.deleted],
          entries: async () => given.written,
        };
  attempts: for (let attempt = 0; attempt < 2; attempt++) {
    const current = attempt === 0 ? head : await readManifestRoot(store);
    if (!current || current.legacyRoutes) return await rewriteWhole(store, current, update);
    const root = current;
    const touched = new Map<string, string[]>();
    for (const route of update.routes) {
      const name = shardOf(route, root.shardCount);
      const routes = touched.get(name) ?? [];
      routes.push(route);
      touched.set(name, routes);
    }
    const shards = { ...root.shards };
    const stored = new Set(keysOf(root.shards));
    const names = [...touched.keys()];
    for (let i = 0; i < names.length; i += PARALLEL) {
      const group = names.slice(i, i + PARALLEL);
      const named = Object.fromEntries(group.flatMap((n) => (root.shards[n] ? [[n, root.shards[n]]] : [])));
      const [read, written] = await Promise.all([
        readShards(store, named),
        update.entries(group.flatMap((name) => touched.get(name) ?? [])),
      ]);
      if (!read) continue attempts;
      await eachLimit(group, async (name) => {
        const routes = read.get(name) ?? {};
        for (const route of touched.get(name) ?? []) {
          const entry = written.get(route);
          if (entry) routes[route] = entry;
          else delete routes[route];
        }
        if (Object.keys(routes).length === 0) delete shards[name];
        else shards[name] = await putShard(store, name, routes, stored);
      });
    }
    const next: ManifestRoot = { ...root, ref: update.ref, builtAt: new Date().toISOString() };
    update.edit?.(next);
    const written = rootOf({ ...next, routes: {} }, root.shardCount, shards);
    await putJson(store, MANIFEST_KEY, JSON.stringify(written));
    const kept = new Set(keysOf(written.shards));
    await eachLimit(
      keysOf(root.shards).filter((key) => !kept.has(key)),
      (key) => store.delete(key),
    );
    return written;
  }
  throw new Error(`a shard of the build manifest ${MANIFEST_KEY} is missing; the next build writes it again`);
}

/** No manifest, or one of version 1: the update applied to its routes, written whole (as version 2). */
async function rewriteWhole(
  store: SiteStore,
  head: ManifestHead | undefined,
  update: ManifestStreamedUpdate,
): Promise<ManifestRoot> {
  const routes = { ...(head?.legacyRoutes ?? {}) };
  const written = await update.entries(update.routes);
  for (const route of update.routes) {
    const entry = written.get(route);
    if (entry) routes[route] = entry;
    else delete routes[route];
  }
  const manifest: BuildManifest = {
    ...(head ?? { assets: {} }),
    version: MANIFEST_VERSION,
    ref: update.ref,
    builtAt: new Date().toISOString(),
    routes,
  };
  update.edit?.(manifest);
  return await writeManifest(store, manifest);
}

function rootOf(manifest: BuildManifest, shardCount: number, shards: Record<string, string>): ManifestRoot {
  const { ref, builtAt, site, aliases, assets, redirects, temporaryRedirects } = manifest;
  const root: ManifestRoot = { version: MANIFEST_VERSION, ref, builtAt, assets, shardCount, shards: {} };
  if (site !== undefined) root.site = site;
  if (aliases !== undefined) root.aliases = aliases;
  if (redirects !== undefined) root.redirects = redirects;
  if (temporaryRedirects !== undefined) root.temporaryRedirects = temporaryRedirects;
  for (const name of Object.keys(shards).sort()) root.shards[name] = shards[name] as string;
  return root;
}

/**
 * Stores a shard unless `stored` names its key already; answers its hash. Routes are written
 * sorted and without their dependencies (those live in the worker's index): equal routes are
 * equal bytes, so a shard no route of which changed is never written again.
 */
async function putShard(
  store: SiteStore,
  name: string,
  routes: Record<string, ManifestRoute>,
  stored: ReadonlySet<string>,
): Promise<string> {
  const sorted: Record<string, ManifestRoute> = {};
  for (const route of Object.keys(routes).sort()) {
    const { key, hash, status, documentId } = routes[route] as ManifestRoute;
    sorted[route] = documentId ? { key, hash, status, documentId } : { key, hash, status };
  }
  const body = JSON.stringify({ version: MANIFEST_VERSION, routes: sorted });
  const hash = sha256(body).slice(0, 16);
  if (!stored.has(shardKey(name, hash))) await putJson(store, shardKey(name, hash), body);
  return hash;
}

async function putJson(store: SiteStore, key: string, body: string): Promise<void> {
  await store.put(key, body, {
    contentType: "application/json",
    cacheControl: CACHE_CONTROL.metadata,
    contentHash: sha256(body),
  });
}

function keysOf(shards: Record<string, string> | undefined): string[] {
  return Object.entries(shards ?? {}).map(([name, hash]) => shardKey(name, hash));
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function parseRoot(body: Buffer): ManifestHead | undefined {
  try {
    const parsed = JSON.parse(body.toString()) as Record<string, unknown>;
    if (parsed.version === MANIFEST_VERSION && isRecord(parsed.shards) && Number.isInteger(parsed.shardCount))
      return (parsed.shardCount as number) >= 1 ? (parsed as unknown as ManifestRoot) : undefined;
    if (parsed.version === 1 && isRecord(parsed.routes)) {
      const { routes, ...rest } = parsed as unknown as BuildManifest;
      return { ...rest, version: MANIFEST_VERSION, shardCount: 1, shards: {}, legacyRoutes: routes };
    }
  } catch {
    // unreadable: no manifest
  }
  return undefined;
}

function parseShard(body: Buffer | undefined): Record<string, ManifestRoute> | undefined {
  if (!body) return undefined;
  try {
    const parsed = JSON.parse(body.toString()) as { version?: unknown; routes?: unknown };
    return parsed.version === MANIFEST_VERSION && isRecord(parsed.routes)
      ? (parsed.routes as Record<string, ManifestRoute>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Runs `task` on each item, PARALLEL at a time. */
async function eachLimit<T>(items: readonly T[], task: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const run = async () => {
    while (next < items.length) await task(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, items.length) }, run));
}
