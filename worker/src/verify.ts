import { createClientSource } from "#content/source.ts";
import { redisKeys } from "#jobs/catalog.ts";
import { CACHE_CONTROL } from "#manifest/manifest.ts";
import { type SiteStore, sha256 } from "#storage";
import type { PublishContext } from "./publish/context.ts";
import { DependencyIndex } from "./publish/dependency-index.ts";
import { rebuild } from "./publish/diff-build.ts";
import { purgeRoutes } from "./publish/edge-purge.ts";
import { renderRoutes } from "./publish/render-routes.ts";

/** Stored objects reconcile reads and hashes per round: the whole of a 3,000-page site in ~10 rounds. */
export const SAMPLE_SIZE = 300;

export interface Verification {
  mode: "full" | "sample";
  at: string;
  ref: string;
  /** Objects whose stored bytes were read and hashed. */
  checked: number;
  /** Keys whose stored bytes differed from what the ref renders (or were missing): rewritten. */
  repaired: string[];
  /** Keys no route produces any more: deleted (full verification only). */
  deleted: number;
}

/**
 * `pressroom verify`: proves storage matches the master ref. Reads every stored object and hashes
 * its bytes (no recorded hash is trusted: a manifest, sidecar or index can all describe bytes that
 * are no longer there), renders every route at the master ref, rewrites every object whose bytes
 * differ, deletes orphans, and rebuilds the index. Run it under the publish lock.
 */
export async function verifyStorage(ctx: PublishContext): Promise<Verification> {
  const ref = await ctx.client.fetchMasterRef();
  const stored = await hashStored(ctx.store);
  const { manifest, summary } = await rebuild(
    ctx,
    ref,
    new DependencyIndex(ctx.redis, ctx.queuePrefix),
    stored,
  );
  const expected = new Map<string, string>(Object.entries(manifest.assets));
  for (const route of Object.values(manifest.routes)) expected.set(route.key, route.hash);
  const repaired = [...expected].filter(([key, hash]) => stored.get(key) !== hash).map(([key]) => key);
  const result: Verification = {
    mode: "full",
    at: new Date().toISOString(),
    ref,
    checked: stored.size,
    repaired: repaired.sort(),
    deleted: summary.deleted,
  };
  await record(ctx, result);
  return result;
}

/**
 * Reconcile's share of verification: reads `size` stored pages (rotating through the index's routes
 * from where the last round stopped), hashes their bytes and compares them with the index's hash.
 * A page whose bytes differ (or that is missing) is rendered again at the index's ref and written.
 * Call it only when the index is at the master ref (reconcile found nothing else to do).
 */
export async function sampleStorage(ctx: PublishContext, size = SAMPLE_SIZE): Promise<Verification> {
  const keys = redisKeys(ctx.queuePrefix);
  const index = new DependencyIndex(ctx.redis, ctx.queuePrefix);
  // The route names only, and then the sample's entries: every entry of a 10,000-page index is
  // ~10,000 JSON values with their dependencies, parsed each round for 300 of them.
  const [ref, names, cursor] = await Promise.all([
    index.ref(),
    index.routeNames(),
    ctx.redis.get(keys.verifyCursor),
  ]);
  const routes = names.sort();
  const start = cursor ? routes.findIndex((route) => route > cursor) : 0;
  const sample: string[] = [];
  for (let i = 0; i < Math.min(size, routes.length); i++)
    sample.push(routes[(Math.max(start, 0) + i) % routes.length] as string);
  const all = await index.routes(sample);
  const drifted: string[] = [];
  for (const route of sample) {
    const entry = all.get(route);
    if (!entry) continue; // committed away since the names were read: nothing to compare
    const object = await ctx.store.get(entry.key);
    if (!object || sha256(object.body) !== entry.hash) drifted.push(route);
  }
  if (ref && drifted.length > 0) {
    ctx.logger.warn(
      { routes: drifted, ref },
      "verify: stored pages differ from the index; rendering them again",
    );
    // No previous entries: every drifted route is written whatever the index says of it.
    await renderRoutes(ctx, {
      ref,
      routes: drifted,
      source: createClientSource(ctx.client, ref),
      overlay: new Map(),
      previous: new Map(),
      index,
      log: ctx.logger.child({ ref, step: "verify" }),
    });
    // The edge may hold the drifted bytes too.
    await purgeRoutes(ctx, drifted, { reference: `${ctx.queuePrefix}-verify-${Date.now()}` });
  }
  if (sample.length > 0) await ctx.redis.set(keys.verifyCursor, sample.at(-1) as string);
  const result: Verification = {
    mode: "sample",
    at: new Date().toISOString(),
    ref: ref ?? "",
    checked: sample.length,
    repaired: drifted.map((route) => all.get(route)?.key ?? route),
    deleted: 0,
  };
  await record(ctx, result);
  return result;
}

/**
 * Key → sha256 of the bytes each stored object holds (the `.pressroom/` metadata aside). An object
 * stored with another cache policy than the build writes (without `s-maxage`, say) counts as
 * differing, so verify rewrites it: its bytes alone would never be.
 */
async function hashStored(store: SiteStore): Promise<Map<string, string>> {
  const hashes = new Map<string, string>();
  for await (const key of store.keys()) {
    if (key.startsWith(".pressroom/")) continue;
    const object = await store.get(key);
    if (!object) continue;
    const policy = key.startsWith("assets/") ? CACHE_CONTROL.immutable : CACHE_CONTROL.html;
    hashes.set(
      key,
      object.cacheControl === policy ? sha256(object.body) : `cache-control: ${object.cacheControl}`,
    );
  }
  return hashes;
}

async function record(ctx: PublishContext, result: Verification): Promise<void> {
  await ctx.redis.set(redisKeys(ctx.queuePrefix).lastVerify, JSON.stringify(result));
  if (result.repaired.length > 0)
    ctx.logger.warn({ ...result }, `verify: ${result.repaired.length} stored objects repaired`);
  else ctx.logger.info({ ...result }, "verify: storage matches");
}

/** One line for `pressroom status`. */
export function formatVerification(json: string | null): string {
  if (!json) return "never verified (pressroom verify; reconcile samples stored pages each round)";
  const v = JSON.parse(json) as Verification;
  const what = v.mode === "full" ? "full verification" : "reconcile sample";
  const found =
    v.repaired.length > 0
      ? `${v.repaired.length} differed and were repaired (${v.repaired.slice(0, 5).join(", ")}${v.repaired.length > 5 ? ", …" : ""})`
      : "all matched";
  return `${what} at ${v.at}, ref ${v.ref}: ${v.checked} objects checked, ${found}`;
}
