/**
 * What the publishing side of a large fan-out reads and holds per route, counted on two generated
 * sites, the second four times larger: a settings change re-renders every route in child jobs (here
 * run in-process on a Redis connection of their own, as another worker would), which leave their
 * routes' entries in Redis (fan-out-entries.ts) and answer without them; the commit reads them and
 * the routes' previous entries `commitChunk` routes at a time, about three entries per route in all,
 * whatever the site's size. And when Redis lost the entries before the commit, the publish fails
 * having committed nothing (manifest, index) and its retry publishes.
 */
import { join } from "node:path";
import type { PrismicDocument } from "@prismicio/client";
import { type Command, Redis } from "ioredis";
import { pino } from "pino";
import { beforeAll, describe, expect, it } from "vitest";
import { redisKeys } from "#jobs/catalog.ts";
import { readManifestRoot } from "#manifest/manifest-store.ts";
import { createSiteStore } from "#storage";
import { buildSiteAssets } from "#web/assets.ts";
import type { BatchOutcome, PublishContext, PublishSummary } from "#worker/publish/context.ts";
import { DependencyIndex } from "#worker/publish/dependency-index.ts";
import { diffBuild } from "#worker/publish/diff-build.ts";
import { FanOutEntriesLostError, fanOutEntriesKey } from "#worker/publish/fan-out-entries.ts";
import { publish } from "#worker/publish/publish.ts";
import { renderBatchJob } from "#worker/publish/render-routes.ts";
import { localContentClient } from "../support/content-client.ts";
import { ensureGeneratedRepository } from "../support/generated-repository.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";
import { removeKeysUnder } from "../support/redis-keys.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const SIZES = [150, 600];
/** Routes the commit reads at a time: far fewer than either site has. */
const CHUNK = 25;
const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" });

interface Counted {
  pages: number;
  summary: PublishSummary;
  /** Entries the child jobs' answers handed to the publish. */
  handed: number;
  /** Route entries the publish read (its index's and the child jobs'), and the most in one read. */
  entriesRead: number;
  largestRead: number;
  stagedLeft: number;
  pageShowsChange: boolean;
  lost?: {
    error: unknown;
    manifestRef: string | undefined;
    indexRef: string | undefined;
    retried: PublishSummary;
  };
  before: { manifestRef: string | undefined; indexRef: string | undefined };
}
const counted: Counted[] = [];

beforeAll(async () => {
  const assets = await buildSiteAssets();
  for (const [i, pages] of SIZES.entries()) counted.push(await countFanOut(pages, assets.assets, i === 0));
}, 900_000);

describe("a large fan-out's commit", () => {
  it("holds no child job's entries and reads about three entries per route, a chunk at a time, whatever the site's size", () => {
    console.log(
      "settings change in child jobs, counted:",
      counted
        .map(
          (c) =>
            `${c.pages} pages: ${c.summary.rendered} routes rendered in ${c.summary.batches} child jobs, ${c.handed} entries handed back, ${c.entriesRead} entries read by the publish (at most ${c.largestRead} at once)`,
        )
        .join("; "),
    );
    for (const c of counted) {
      expect(c.summary.mode).toBe("incremental");
      expect(c.summary.batches).toBeGreaterThan(1);
      expect(c.summary.rendered).toBeGreaterThan(c.pages);
      expect(c.pageShowsChange).toBe(true);
      expect(c.handed).toBe(0);
      expect(c.largestRead).toBeLessThanOrEqual(CHUNK);
      // The manifest's pass and the index's read each route's new entry; the index's its old one.
      expect(c.entriesRead).toBeLessThanOrEqual(3 * c.summary.rendered + CHUNK);
      expect(c.stagedLeft).toBe(0);
    }
    const [small, large] = counted as [Counted, Counted];
    expect(large.largestRead).toBe(small.largestRead);
  });

  it("fails without committing when Redis lost the child jobs' entries, and its retry publishes", () => {
    const { lost, before } = counted[0] as Counted;
    expect(lost?.error).toBeInstanceOf(FanOutEntriesLostError);
    expect(lost?.manifestRef).toBe(before.manifestRef);
    expect(lost?.indexRef).toBe(before.indexRef);
    expect(lost?.retried.mode).toBe("incremental");
    expect(lost?.retried.ref).not.toBe(before.indexRef);
  });
});

/** Builds a generated site of `pages`, publishes a settings change through child jobs, counts. */
async function countFanOut(
  pages: number,
  assets: PublishContext["assets"],
  alsoLose: boolean,
): Promise<Counted> {
  const prefix = `test-fan-out-commit-${pages}-${process.pid}-${Date.now()}`;
  const repo = join(process.env.TMPDIR ?? join(ROOT, ".tmp"), `fan-out-commit-repo-${pages}`);
  ensureGeneratedRepository(repo, pages, 5);
  const redis = new Redis({ maxRetriesPerRequest: null });
  const childRedis = new Redis({ maxRetriesPerRequest: null });
  let content: LocalPrismic | undefined;
  const store = createSiteStore({ url: "memory:", s3Endpoint: undefined, s3Region: "us-east-1" });
  try {
    content = await startLocalPrismic({ seedDir: repo });
    const client = localContentClient(content.endpoint);
    const reads = countEntryReads(redis);
    let handed = 0;
    let afterChildren: (generation: number) => Promise<void> = async () => undefined;
    const base = { client, store, queuePrefix: prefix, siteUrl: "https://www.example.com", assets, logger };
    const child: PublishContext = { ...base, redis: childRedis };
    const ctx: PublishContext = {
      ...base,
      redis,
      fanOutThreshold: 20,
      fanOutBatch: 50,
      commitChunk: CHUNK,
      fanOut: async (ref, batches, overlay, generation, keep) => {
        const outcomes: BatchOutcome[] = [];
        for (const routes of batches) {
          const outcome = await renderBatchJob(child, ref, routes, new Map(overlay), generation);
          handed += outcome.written.length;
          outcomes.push(keep ? keep(outcome) : outcome);
        }
        await afterChildren(generation);
        return outcomes;
      },
    };
    await diffBuild(ctx, await client.fetchMasterRef());
    const service = content;
    const settingsChange = async (holder: string) => {
      const settings = (await client.getSingle("settings", {
        ref: await client.fetchMasterRef(),
      })) as unknown as PrismicDocument;
      await service.store.publish({
        upsert: [{ ...settings, data: { ...settings.data, copyright_holder: holder } }],
      });
      await redis.sadd(redisKeys(prefix).pendingIds, settings.id);
      return publish(ctx);
    };
    const refs = async () => ({
      manifestRef: (await readManifestRoot(store))?.ref,
      indexRef: await new DependencyIndex(redis, prefix).ref(),
    });
    reads.reset();
    const summary = await settingsChange("Counted Holder Ltd");
    const home = (await store.get("index.html"))?.body.toString("utf8") ?? "";
    const result: Counted = {
      pages,
      summary,
      handed,
      entriesRead: reads.total,
      largestRead: reads.largest,
      stagedLeft: (await redis.keys(`${prefix}:fan-out:*`)).length,
      pageShowsChange: home.includes("Counted Holder Ltd"),
      before: await refs(),
    };
    if (alsoLose) {
      // Redis loses the entries between the last child and the commit (restarted empty, say).
      afterChildren = async (generation) => {
        await redis.unlink(fanOutEntriesKey(prefix, generation));
      };
      const error = await settingsChange("Lost Holder Ltd").then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      const after = await refs();
      afterChildren = async () => undefined;
      const retried = await publish(ctx);
      result.lost = { error, ...after, retried };
    }
    return result;
  } finally {
    await content?.stop();
    await store.close();
    await removeKeysUnder(redis, prefix);
    await redis.quit();
    await childRedis.quit();
  }
}

/**
 * Counts the route entries read through `redis` (HMGET of the index's routes or of a fan-out's
 * entries): in all, and the most in one command.
 */
function countEntryReads(redis: Redis) {
  const counts = { total: 0, largest: 0 };
  const send = redis.sendCommand.bind(redis);
  redis.sendCommand = ((command: Command, ...rest: unknown[]) => {
    const [key, ...fields] = command.args.map(String);
    if (command.name === "hmget" && key && (key.endsWith(":index:routes") || key.includes(":fan-out:"))) {
      counts.total += fields.length;
      counts.largest = Math.max(counts.largest, fields.length);
    }
    return (send as (...args: unknown[]) => unknown)(command, ...rest);
  }) as typeof redis.sendCommand;
  return {
    get total() {
      return counts.total;
    },
    get largest() {
      return counts.largest;
    },
    reset() {
      counts.total = 0;
      counts.largest = 0;
    },
  };
}
