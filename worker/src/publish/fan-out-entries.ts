import type { Redis } from "ioredis";
import { chunksOf } from "#jobs/chunks.ts";
import type { ManifestRoute } from "#manifest/manifest.ts";
import type { CommittedEntry, IndexedRoute } from "./dependency-index.ts";

/**
 * Where a large fan-out's child jobs leave the index entries of the routes they rendered
 * (`<prefix>:fan-out:<generation>:entries`, route → the entry's JSON, as the index stores it), for the
 * publish that queued them to commit a chunk at a time: the publishing worker never holds an entry
 * per route of the site (docs/operations.md, "Memory"). The publish deletes it once committed; a
 * publish that failed or was superseded leaves it to expire.
 */
export const fanOutEntriesKey = (prefix: string, generation: number) =>
  `${prefix}:fan-out:${generation}:entries`;

/** How long the entries of a fan-out stay when its publish never commits them (a day: any fan-out ends well before). */
export const FAN_OUT_ENTRIES_TTL_S = 86_400;

/** Routes the commit reads (and whose index entries it replaces) at a time. */
export const COMMIT_CHUNK = 500;

/** A fan-out's entries are gone from Redis (it restarted empty, or they expired): the publish fails, and is retried. */
export class FanOutEntriesLostError extends Error {
  override readonly name = "FanOutEntriesLostError";
}

/** A child job's entries, stored before it answers (each route once; a retried job stores them again). */
export async function stageEntries(
  redis: Redis,
  prefix: string,
  generation: number,
  written: readonly (readonly [string, IndexedRoute])[],
): Promise<void> {
  if (written.length === 0) return;
  const key = fanOutEntriesKey(prefix, generation);
  const multi = redis.multi();
  for (const chunk of chunksOf(written, 100))
    multi.hset(key, ...chunk.flatMap(([route, entry]) => [route, JSON.stringify(entry)]));
  multi.expire(key, FAN_OUT_ENTRIES_TTL_S);
  for (const [error] of (await multi.exec()) ?? []) if (error) throw error;
}

/**
 * What a fan-out's child jobs wrote, as the publish that waits for them knows it without their
 * entries: the routes it planned (`planned`, in order), less those a child did not write (their
 * render failed, or their document was gone), plus those a child wrote beyond its batch (the
 * sitemap's new parts). The entries stay in Redis until the commit reads them (`entries`, `chunks`).
 */
export class StagedWrites {
  readonly #unwritten = new Set<string>();
  readonly #also = new Set<string>();
  /** Routes whose bytes or key changed (what the edge must forget), found as the commit reads the entries. */
  readonly changed: string[] = [];

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly generation: number,
    private readonly planned: readonly string[],
    private readonly isPlanned: (route: string) => boolean,
    /** Routes read at a time (COMMIT_CHUNK; tests lower it). */
    private readonly chunk = COMMIT_CHUNK,
  ) {}

  get key(): string {
    return fanOutEntriesKey(this.prefix, this.generation);
  }

  /** A child's outcome: the routes of its batch it did not write, and those it wrote beyond it. */
  add(unwritten: readonly string[], also: readonly string[]): void {
    for (const route of unwritten) this.#unwritten.add(route);
    for (const route of also) if (!this.isPlanned(route)) this.#also.add(route);
  }

  has(route: string): boolean {
    return this.isPlanned(route) ? !this.#unwritten.has(route) : this.#also.has(route);
  }

  /** Every route written, the planned ones first, in plan order. */
  *routes(): Generator<string> {
    for (const route of this.planned) if (!this.#unwritten.has(route)) yield route;
    yield* this.#also;
  }

  /** The manifest's entries of those of `routes` written, `chunk` read at a time. */
  async entries(routes: readonly string[]): Promise<Map<string, ManifestRoute>> {
    const found = new Map<string, ManifestRoute>();
    // The chunks at once: a few shards' routes (the manifest's caller asks for that many), not the site's.
    const chunks = [
      ...chunksOf(
        routes.filter((route) => this.has(route)),
        this.chunk,
      ),
    ];
    const read = await Promise.all(chunks.map((some) => this.#read(some)));
    chunks.forEach((some, c) => {
      const values = read[c] as string[];
      some.forEach((route, i) => {
        const { key, hash, status, documentId } = JSON.parse(values[i] as string) as IndexedRoute;
        found.set(route, documentId ? { key, hash, status, documentId } : { key, hash, status });
      });
    });
    return found;
  }

  /**
   * The written routes' entries with their previous ones (the index's, read now: nothing but this
   * publish commits meanwhile, it holds the lock), `chunk` routes at a time; records `changed`.
   */
  async *chunks(
    indexRoutes: (routes: readonly string[]) => Promise<Map<string, IndexedRoute>>,
  ): AsyncGenerator<CommittedEntry[]> {
    this.changed.length = 0;
    const read = (routes: string[]) => {
      const reading = Promise.all([this.#read(routes), indexRoutes(routes)]);
      reading.catch(() => undefined); // thrown where it is awaited
      return { routes, reading };
    };
    const groups = this.#groups();
    // The next chunk is read while the transaction sends this one: two chunks in hand at most.
    let next = groups.next();
    let ahead = next.done ? undefined : read(next.value);
    while (ahead) {
      const { routes, reading } = ahead;
      const [values, previous] = await reading;
      next = groups.next();
      ahead = next.done ? undefined : read(next.value);
      yield routes.map((route, i) => {
        const json = values[i] as string;
        const entry = JSON.parse(json) as IndexedRoute;
        const before = previous.get(route);
        if (before?.hash !== entry.hash || before.key !== entry.key) this.changed.push(route);
        return { route, entry, json, before };
      });
    }
  }

  /** The written routes, `chunk` at a time. */
  *#groups(): Generator<string[]> {
    let routes: string[] = [];
    for (const route of this.routes()) {
      routes.push(route);
      if (routes.length >= this.chunk) {
        yield routes;
        routes = [];
      }
    }
    if (routes.length > 0) yield routes;
  }

  /** Forgets the entries (after the commit); if Redis cannot now, they expire (the publish is done either way). */
  async drop(): Promise<void> {
    await this.redis.unlink(this.key).catch(() => undefined);
  }

  /** The entries of `routes` (at most a chunk's), each of which a child wrote: a missing one means Redis lost them. */
  async #read(routes: readonly string[]): Promise<string[]> {
    if (routes.length === 0) return [];
    const values = await this.redis.hmget(this.key, ...routes);
    const lost = values.filter((value) => value === null).length;
    if (lost > 0)
      throw new FanOutEntriesLostError(
        `${lost} of ${routes.length} routes rendered by the fan-out's child jobs have no entry in Redis (did it lose its data?): the publish fails and is retried`,
      );
    return values as string[];
  }
}
