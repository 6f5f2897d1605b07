import { filter } from "@prismicio/client";
import { redisKeys } from "#jobs/catalog.ts";
import { chunksOf } from "#jobs/chunks.ts";
import { readManifestRoot } from "#manifest/manifest-store.ts";
import { website } from "#website";
import { documentHash } from "./build/document-hash.ts";
import { publishObserved } from "./ops/publish-metrics.ts";
import type { PublishContext } from "./publish/context.ts";
import { DependencyIndex } from "./publish/dependency-index.ts";
import { diffBuild, siteVersionOf } from "./publish/diff-build.ts";
import { sendOwedPurges } from "./publish/edge-purge.ts";
import { republishPastYears } from "./publish/year-turn.ts";
import { sampleStorage } from "./verify.ts";

/** How long what a round saw (a moved ref, suspects) is kept: longer than any interval, as it only pairs two rounds. */
const GRACE_TTL_SECONDS = 24 * 3600;
/** Publications read per request when checking them against the index, and at most this many pages a round. */
const CHECK_PAGE_SIZE = 100;
const CHECK_MAX_PAGES = 10;

export interface ReconcileOutcome {
  action: "none" | "diff-build" | "publish";
  reason: string;
  ref: string;
}

/**
 * Catches what webhooks missed. A diff build runs when the index is missing or of another version,
 * when the index or the stored site was built with another site version than this process's (a
 * deploy: render code, routes, models or assets; or `pressroom build`), or when the master ref moved
 * with no publish pending (a lost delivery). Runs under the publish lock, like a publish.
 *
 * A moved ref, or publications the index has not seen (`checkPublications`), are acted on only when
 * the previous round saw them too: Prismic moves the ref before its webhook arrives, and a round in
 * between must not rebuild the site for an edit about to be published. So a lost delivery is
 * recovered within two rounds.
 */
export async function reconcile(
  ctx: PublishContext,
  assetKeys: readonly string[],
  options: { sampleSize?: number } = {},
): Promise<ReconcileOutcome> {
  await resendOwedPurges(ctx);
  const outcome = await reconcileRefs(ctx, assetKeys);
  // Nothing else to do, so the index describes the master ref: check that storage holds what the
  // index says, a few hundred stored pages a round, so drift (a write gone back in time, an object
  // changed by hand) is found without anyone asking.
  if (outcome.action === "none" && outcome.reason === "up to date") {
    const sample = await sampleStorage(ctx, options.sampleSize);
    if (sample.repaired.length > 0)
      return { action: "none", reason: `repaired ${sample.repaired.length} drifted pages`, ref: outcome.ref };
  }
  return outcome;
}

/**
 * The edge: purges still owed since a failure go out again every round, whatever the
 * purge job did (it gives up after an hour and a half; Redis may have lost it). Never fails the round.
 */
async function resendOwedPurges(ctx: PublishContext): Promise<void> {
  if (!ctx.edge) return;
  try {
    const sent = await sendOwedPurges(ctx, {
      reference: `${ctx.queuePrefix}-reconcile-${Date.now()}`,
      siteRoutes: await ctx.redis.hlen(`${ctx.queuePrefix}:index:routes`),
    });
    if (!sent.ok) await ctx.schedulePurge?.();
  } catch (error) {
    ctx.logger.warn({ err: error }, "reconcile: could not send the purges the edge owes");
  }
}

async function reconcileRefs(ctx: PublishContext, assetKeys: readonly string[]): Promise<ReconcileOutcome> {
  const keys = redisKeys(ctx.queuePrefix);
  const index = new DependencyIndex(ctx.redis, ctx.queuePrefix);
  const [
    indexRef,
    pendingIds,
    processingIds,
    backlog,
    pendingRefs,
    processingRefs,
    masterRef,
    manifest,
    indexSite,
    site,
  ] = await Promise.all([
    index.ref(),
    ctx.redis.scard(keys.pendingIds),
    ctx.redis.scard(keys.processingIds),
    ctx.redis.scard(keys.processingBacklog),
    // Refs announced with no ids (pending-refs.ts) are pending work too.
    ctx.redis.scard(keys.pendingRefs),
    ctx.redis.scard(keys.processingRefs),
    ctx.client.fetchMasterRef(),
    readManifestRoot(ctx.store),
    index.site(),
    siteVersionOf(ctx),
  ]);
  const pending = pendingIds + pendingRefs;
  const processing = processingIds + backlog + processingRefs;
  if (indexRef !== undefined && pending + processing > 0) {
    // Ids whose job is gone (a redelivery deduplicated against a finished job, a job that ran out of attempts).
    ctx.logger.info({ pending, processing }, "reconcile: publishing ids left pending");
    const result = await publishObserved(ctx);
    return { action: "publish", reason: "ids were pending with no job", ref: result.ref };
  }
  let reason: string | undefined;
  if (indexRef === undefined) reason = "the dependency index is missing or of another version";
  else if (!manifest) reason = "storage holds no build manifest";
  else if (indexSite !== site || manifest.site !== site)
    // A deploy, or `pressroom build` (it marks the index, and records its version in the manifest).
    reason = `the site's code is not the one the ${indexSite === site ? "stored site" : "index"} was built with (a deploy, or pressroom build)`;
  else if (pending + processing === 0 && indexRef !== masterRef) {
    const seenBefore = await ctx.redis.getset(keys.movedRef, masterRef);
    if (seenBefore !== masterRef) {
      await ctx.redis.expire(keys.movedRef, GRACE_TTL_SECONDS);
      ctx.logger.info(
        { indexRef, masterRef },
        "reconcile: the master ref moved; its webhook has one round to arrive",
      );
      return {
        action: "none",
        reason: "the master ref moved; waiting one round for its webhook",
        ref: masterRef,
      };
    }
    reason = `the master ref moved (${indexRef} → ${masterRef}) with no publish since the last round`;
  } else if (assetKeys.some((key) => !(key in manifest.assets)))
    reason = "the site's assets are not this version's";
  let newest: string | undefined;
  if (!reason) {
    const yearTurned = await republishPastYears(ctx, index);
    if (yearTurned) return yearTurned;
    const checked = await checkPublications(ctx, index, masterRef);
    if ("outcome" in checked) return checked.outcome;
    ({ reason, newest } = checked);
  }
  ctx.logger.warn({ reason, masterRef }, "reconcile: running a diff build");
  await diffBuild(ctx, masterRef, index);
  const after = ctx.redis.multi().set(keys.lastRef, masterRef).del(keys.movedRef, keys.suspects);
  // Everything is as published at masterRef: the next round reads back only to its newest publication.
  if (newest) after.set(keys.checkedUntil, newest);
  else after.del(keys.checkedUntil);
  await after.exec();
  return { action: "diff-build", reason, ref: masterRef };
}

/** What a round found that the index lacks, kept for the next round (which acts on what both saw). */
export interface Suspects {
  ids: string[];
  mismatch: boolean;
}

/**
 * The refs agree: compares the newest publications with the index. What a round finds may only be
 * a webhook on its way (reordered behind a later one), so it acts on what the previous round found
 * too: it publishes documents both rounds saw unannounced, and runs a diff build (the answer it
 * returns as `reason`) when both saw the document counts disagree.
 */
async function checkPublications(
  ctx: PublishContext,
  index: DependencyIndex,
  ref: string,
): Promise<{ outcome: ReconcileOutcome } | { reason: string; newest?: string }> {
  const keys = redisKeys(ctx.queuePrefix);
  const [since, suspected] = await ctx.redis.mget(keys.checkedUntil, keys.suspects);
  const found = await unannounced(ctx, index, ref, since ?? null);
  const before: Suspects = suspected ? (JSON.parse(suspected) as Suspects) : { ids: [], mismatch: false };
  if (found.mismatch && before.mismatch) return { reason: found.mismatch, newest: found.newest };
  const stale = [...found.stale.keys()];
  const confirmed = stale.filter((id) => before.ids.includes(id));
  const waiting = stale.filter((id) => !before.ids.includes(id));
  // The next round reads back to the oldest publication still waiting, or else to the newest; after
  // a mismatch, as far back as this one did (more than one round can read may be unchecked).
  const dates = waiting.map((id) => found.stale.get(id)).filter((date): date is string => Boolean(date));
  const until = found.mismatch
    ? undefined
    : (dates.sort((x, y) => Date.parse(x) - Date.parse(y))[0] ?? found.newest);
  const next = ctx.redis.multi();
  if (waiting.length > 0 || found.mismatch) {
    const suspects: Suspects = { ids: waiting, mismatch: Boolean(found.mismatch) };
    next.set(keys.suspects, JSON.stringify(suspects), "EX", GRACE_TTL_SECONDS);
    ctx.logger.info(
      { ids: waiting, mismatch: found.mismatch },
      "reconcile: publications the index has not seen; their webhooks have one round to arrive",
    );
  } else next.del(keys.suspects);
  if (until) next.set(keys.checkedUntil, until);
  await next.exec();
  if (confirmed.length === 0) {
    const waitingReason = "publications without a webhook yet; waiting one round";
    return {
      outcome: {
        action: "none",
        reason: waiting.length > 0 || found.mismatch ? waitingReason : "up to date",
        ref,
      },
    };
  }
  ctx.logger.warn(
    { ids: confirmed, masterRef: ref },
    "reconcile: publishing documents whose webhook never came",
  );
  // As the webhook receiver would have: recorded, then published with whatever else is pending.
  for (const chunk of chunksOf(confirmed)) await ctx.redis.sadd(keys.pendingIds, ...chunk);
  const result = await publishObserved(ctx);
  return {
    outcome: {
      action: "publish",
      reason: `published without a webhook: ${confirmed.join(", ")}`,
      ref: result.ref,
    },
  };
}

interface Unannounced {
  /** Documents at the ref that differ from what the index saw, or are not in it at all: id → publication date. */
  stale: Map<string, string | null>;
  /** Why only a diff build can tell what changed (the counts disagree), or undefined. */
  mismatch?: string;
  /** The newest publication date at the ref: where the next round stops reading. */
  newest?: string;
}

/**
 * The publications at `ref` the index has not seen. Reads the documents newest publication first,
 * back to `since` (the previous round's newest; one page when there is none), and compares each
 * one with the index's hash of it (a publication date resolves to the second: two publications
 * within one share it). The repository's document count, in the same
 * answer, must then equal the index's plus the documents it lacks: fewer means a document was
 * unpublished without a webhook; more, that more was published than this round read.
 */
async function unannounced(
  ctx: PublishContext,
  index: DependencyIndex,
  ref: string,
  since: string | null,
): Promise<Unannounced> {
  const sinceMs = since ? Date.parse(since) : Number.POSITIVE_INFINITY;
  const stale = new Map<string, string | null>();
  let newest: string | undefined;
  let total = 0;
  let absent = 0;
  for (let page = 1; ; page++) {
    const response = await ctx.client.get({
      ref,
      filters: [filter.any("document.type", [...website.types])],
      lang: "*",
      page,
      pageSize: CHECK_PAGE_SIZE,
      orderings: { field: "document.last_publication_date", direction: "desc" },
      fetchOptions: { cache: "no-store" },
    });
    const docs = response.results;
    total = response.total_results_size;
    newest ??= docs[0]?.last_publication_date ?? undefined;
    const known = await index.documents(docs.map((doc) => doc.id));
    for (const doc of docs) {
      const indexed = known.get(doc.id);
      if (!indexed) absent++;
      if (indexed?.hash !== documentHash(doc)) stale.set(doc.id, doc.last_publication_date);
    }
    const oldest = docs.at(-1)?.last_publication_date;
    // Pages further back hold only what an earlier round (or the build) already checked.
    if (!oldest || Date.parse(oldest) < sinceMs || page >= response.total_pages) break;
    if (page === CHECK_MAX_PAGES)
      return {
        stale,
        newest,
        mismatch: `more than ${CHECK_MAX_PAGES * CHECK_PAGE_SIZE} publications since the last round`,
      };
  }
  const indexed = await index.documentCount();
  if (total !== indexed + absent)
    return {
      stale,
      newest,
      mismatch: `the repository holds ${total} documents at ${ref} and the index ${indexed}, with ${absent} new: a publication or unpublication had no webhook`,
    };
  return { stale, newest };
}
