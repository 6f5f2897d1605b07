import { aliasRoute } from "#manifest/aliases.ts";
import { MANIFEST_KEY, type ManifestRoute } from "#manifest/manifest.ts";
import { type ManifestHead, readManifestRoot, readShards } from "#manifest/manifest-store.ts";
import { isSafeKey, type SiteStore } from "#storage";

export interface RouteMatch {
  /** The storage key to serve. */
  key: string;
  /** Set when the request is a non-canonical spelling of a route, or a redirect's path: redirect there. */
  redirect?: string;
  /** The redirect's status: 302 for an editor's temporary redirect, 301 otherwise. */
  status?: 301 | 302;
}

/**
 * Maps request paths to storage keys. The canonical spelling of each route
 * comes from the build manifest (`/about`, but `/price-list/`): the other
 * spelling redirects to it. Without a manifest the rule is "no trailing slash".
 * The manifest is re-read at most every `refreshMs`, so a publish is seen quickly;
 * a path it does not know, or knows as a redirect, is looked up in a manifest read
 * after the request arrived (see `match`).
 */
export class RouteTable {
  /** Decoded path → storage key. */
  #routes = new Map<string, string>();
  /** Decoded path → the route as the manifest spells it (percent-encoded): what a redirect names. */
  #spellings = new Map<string, string>();
  /**
   * The manifest's `redirects`, by decoded path: old routes of renamed documents → their route now,
   * editors' redirects → their target. 301, or 302 for those in `temporaryRedirects`.
   */
  #redirects = new Map<string, { location: string; status: 301 | 302 }>();
  /** The website's aliases (`/home` → `/`), as the manifest records them. */
  #aliases: Record<string, string> = {};
  /** Status → the storage key of the site's error page for it (the manifest's routes with that status). */
  #errorPages = new Map<number, string>();
  /** The manifest's route shards the table holds, by name: each read again only when its hash changed. */
  #shards = new Map<string, HeldShard>();
  #etag: string | undefined;
  #checkedAt = -Infinity;
  #refreshing: { promise: Promise<void>; startedAt: number } | undefined;

  constructor(
    private readonly store: SiteStore,
    private readonly refreshMs = 1_000,
  ) {}

  get size(): number {
    return this.#routes.size;
  }

  /**
   * The key (or redirect) of `path`. A miss or a redirect is checked again against a manifest read
   * after the request arrived: an edge purges a publish's routes once the manifest is written and
   * refetches at once, and would otherwise keep a 404 or 301 from a slightly older manifest until
   * the next purge. Costs one shared manifest `head` per unknown path; a known page never waits.
   */
  async match(path: string): Promise<RouteMatch | undefined> {
    await this.#refresh(false);
    const found = this.#lookup(path);
    // A page: as the manifest says (its key does not change while it is a page; a page that became a
    // redirect is a redirect object, answered 301 by the server). Its other spelling (`/about/` →
    // `/about`), a redirect or a miss: checked against a fresh manifest, as the route may have moved.
    if (found && found.key !== "" && found.redirect === undefined) return found;
    await this.#refresh(true);
    return this.#lookup(path) ?? (await this.#written(path));
  }

  /**
   * A path no manifest names whose page is in storage at the key the path gives (`/about` →
   * `about/index.html`, as without a manifest). A publish writes its pages first and the manifest
   * last, and a manifest shard is its largest file: while it cannot be written (a full disk, for as
   * long as it stays full) a renamed page's new route is served from its object, as a bucket
   * website serves it, so the old route's redirect never leads to a 404. One `head` per such path.
   */
  async #written(path: string): Promise<RouteMatch | undefined> {
    if (this.empty) return undefined; // #lookup already answered by the key's shape
    const shaped = byShape(path);
    if (!isSafeKey(shaped.key) || shaped.key.startsWith(".")) return undefined;
    return (await this.store.head(shaped.key)) ? shaped : undefined;
  }

  /** The route a request for `url` is an alias of (`/home?x=1` → `/`), or undefined. */
  async alias(url: string): Promise<string | undefined> {
    await this.#refresh(false);
    return aliasRoute(url, this.#aliases);
  }

  /**
   * The storage key of the site's error page for `status`, as the build recorded it (the manifest's
   * route rendered with that status). Without a manifest (a site written by other means, or storage
   * failing), `<status>.html`: the error documents a bucket website is usually given.
   */
  async errorPageKey(status: number): Promise<string> {
    await this.#refresh(false).catch(() => undefined);
    return this.#errorPages.get(status) ?? `${status}.html`;
  }

  /** The route at decoded `path` as the manifest spells it (`/%C3%BCber-uns`); undefined for no route. */
  spelling(path: string): string | undefined {
    return this.#spellings.get(path);
  }

  #lookup(path: string): RouteMatch | undefined {
    const found = this.#lookupAsSpelled(path);
    if (found || !this.empty) return found;
    // No manifest (a site written by other means): folders with an index.html, no trailing slash.
    return byShape(path);
  }

  #lookupAsSpelled(path: string): RouteMatch | undefined {
    const key = this.#routes.get(path);
    if (key !== undefined) return { key };
    const other = path.endsWith("/") ? path.slice(0, -1) : `${path}/`;
    if (other && this.#routes.has(other))
      return { key: this.#routes.get(other) as string, redirect: this.#spellings.get(other) ?? other };
    const moved = this.#redirects.get(path) ?? (other ? this.#redirects.get(other) : undefined);
    // A redirect is answered, its object never read (it is there for S3 website hosting).
    if (moved !== undefined) return { key: "", redirect: moved.location, status: moved.status };
    // Every address of the site is lower case (a uid is; editors' From paths are lowercased), so
    // `/ABOUT` is a visitor's or a link's spelling of `/about`: 301 there, in one hop. A path that
    // differs only in case from no route stays a 404.
    const lower = path.toLowerCase();
    if (lower === path) return undefined;
    const folded = this.#lookupAsSpelled(lower);
    if (!folded) return undefined;
    return { ...folded, redirect: folded.redirect ?? this.#spellings.get(lower) ?? lower };
  }

  /** Whether anything is served: pages, or redirects. */
  get empty(): boolean {
    return this.#routes.size === 0 && this.#redirects.size === 0;
  }

  /**
   * Reads the manifest again if it is older than `refreshMs`, or (`fresh`) if it was read before this
   * call. A known page is answered from the table at hand while the manifest is read behind it, so
   * the first visitor after a publish does not wait for the changed shards' read. A path the table
   * does not know waits for a fresh read (`match`), and so does the very first request.
   */
  async #refresh(fresh: boolean): Promise<void> {
    const asked = performance.now();
    if (!fresh && asked - this.#checkedAt < this.refreshMs) return;
    if (!fresh && this.#checkedAt !== -Infinity) {
      // Behind the request; the next ones see its result. A failed read is tried again after refreshMs.
      if (!this.#refreshing) this.#refresh(true).catch(() => undefined);
      return;
    }
    for (let running = this.#refreshing; running; running = this.#refreshing) {
      await running.promise;
      // A read that started before the request may have missed a manifest written just before it.
      if (!fresh || running.startedAt >= asked) return;
    }
    const refresh = { promise: Promise.resolve(), startedAt: performance.now() };
    this.#refreshing = refresh;
    refresh.promise = (async () => {
      try {
        const head = await this.store.head(MANIFEST_KEY);
        if (head?.etag === this.#etag && head !== undefined) return;
        const read = await this.#read();
        this.#etag = head?.etag;
        this.#apply(read);
      } finally {
        this.#checkedAt = performance.now();
        if (this.#refreshing === refresh) this.#refreshing = undefined;
      }
    })();
    await refresh.promise;
  }

  /**
   * The manifest's root and the shards it names that the table does not hold at their hash. A shard
   * gone (a publish deleted it after replacing it) means a newer root: read once more, then fail
   * (the table is kept, and read again after refreshMs). A version 1 manifest is its own one shard.
   */
  async #read(): Promise<ReadManifest> {
    for (let attempt = 0; attempt < 2; attempt++) {
      const root = await readManifestRoot(this.store);
      if (!root) return { current: {}, fresh: new Map() };
      if (root.legacyRoutes) {
        const hash = root.etag ?? String(Date.now());
        return { root, current: { v1: hash }, fresh: new Map([["v1", holdShard(hash, root.legacyRoutes)]]) };
      }
      const wanted = Object.fromEntries(
        Object.entries(root.shards).filter(([name, hash]) => this.#shards.get(name)?.hash !== hash),
      );
      const read = await readShards(this.store, wanted);
      if (read) {
        const fresh = new Map(
          [...read].map(([name, routes]) => [name, holdShard(wanted[name] ?? "", routes)]),
        );
        return { root, current: root.shards, fresh };
      }
    }
    throw new Error(`a route shard of ${MANIFEST_KEY} is missing`);
  }

  /** Drops the routes of shards replaced or gone, adds those read; the root's redirects and aliases. */
  #apply({ root, current, fresh }: ReadManifest): void {
    for (const [name, shard] of this.#shards) {
      if (current[name] === shard.hash) continue;
      for (const [path] of shard.pages) {
        this.#routes.delete(path);
        this.#spellings.delete(path);
      }
      this.#shards.delete(name);
    }
    for (const [name, shard] of fresh) {
      this.#shards.set(name, shard);
      for (const [path, route, key] of shard.pages) {
        this.#routes.set(path, key);
        this.#spellings.set(path, route);
      }
    }
    this.#errorPages = new Map([...this.#shards.values()].flatMap((shard) => shard.errors));
    this.#aliases = Object.fromEntries(
      Object.entries(root?.aliases ?? {}).filter(
        ([path, route]) => path.startsWith("/") && typeof route === "string" && route.startsWith("/"),
      ),
    );
    const temporary = new Set(root?.temporaryRedirects ?? []);
    this.#redirects = new Map(
      Object.entries(root?.redirects ?? {})
        .filter(([route, location]) => route.startsWith("/") && typeof location === "string")
        .map(([route, location]) => [
          decodedRoute(route),
          { location, status: temporary.has(route) ? 302 : 301 },
        ]),
    );
  }
}

/** A route shard as the table holds it: its pages by decoded path, and its error pages by status. */
interface HeldShard {
  hash: string;
  /** Decoded path, the route as spelled in the manifest (percent-encoded), storage key. */
  pages: [string, string, string][];
  errors: [number, string][];
}

interface ReadManifest {
  root?: ManifestHead;
  /** Shard name → hash: the shards the manifest names now. */
  current: Record<string, string>;
  /** The shards read now (the others are held at their hash). */
  fresh: Map<string, HeldShard>;
}

function holdShard(hash: string, routes: Record<string, ManifestRoute>): HeldShard {
  const pages: [string, string, string][] = [];
  const errors: [number, string][] = [];
  for (const [route, entry] of Object.entries(routes)) {
    if (entry.status >= 400) errors.push([entry.status, entry.key]);
    // Routes are written percent-encoded (`/%C3%BCber-uns`); requests are matched decoded.
    if (route.startsWith("/") && !/\.(xml|txt)$/.test(route))
      pages.push([decodedRoute(route), route, entry.key]);
  }
  return { hash, pages, errors };
}

/** A path's key by its shape: folders with an index.html, no trailing slash (the other spelling redirects). */
function byShape(path: string): RouteMatch {
  if (path === "/") return { key: "index.html" };
  if (path.endsWith("/")) return { key: `${path.slice(1)}index.html`, redirect: path.slice(0, -1) };
  return { key: `${path.slice(1)}/index.html` };
}

function decodedRoute(route: string): string {
  try {
    return decodeURIComponent(route);
  } catch {
    return route;
  }
}
