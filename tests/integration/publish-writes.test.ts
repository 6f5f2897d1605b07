import { join } from "node:path";
import { Redis } from "ioredis";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PublisherConfig } from "#config";
import { ROUTES_PER_SHARD } from "#manifest/manifest-store.ts";
import { SITEMAP_PART_SIZE } from "#web/handlers/sitemap-split.ts";
import { startWebhook } from "#webhook/server.ts";
import { type RunningWorker, startWorker } from "#worker/worker.ts";
import { contentConfig, localContentClient } from "../support/content-client.ts";
import { ensureGeneratedRepository } from "../support/generated-repository.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";
import { metadataFiles, metadataWritten } from "../support/metadata-writes.ts";
import { removeKeysUnder } from "../support/redis-keys.ts";
import { tempDir } from "../support/temp-dir.ts";
import { until } from "../support/until.ts";
import { webhookOptions } from "../support/webhook-options.ts";
import { untilWorkerSettled } from "../support/worker-settled.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const SECRET = "publish-writes-secret";
/** Sizes whose route count (pages + price lists + 6) fills their shards alike: 2 and 8 shards of ~505. */
const SIZES = [1_000, 4_000];
/** One shard at its fullest (hashing may put twice the average in one) of ~200-byte routes. */
const SHARD_BOUND = 2 * ROUTES_PER_SHARD * 200;
const logger = pino({ level: "silent" });
const redis = new Redis({ maxRetriesPerRequest: null });

interface Counted {
  pages: number;
  /** The first edit of the day (its sitemap entry moves): routes rendered, stubs the sitemap read. */
  firstRendered: number;
  firstListed: number;
  rendered: number;
  metadataBytes: number;
  manifestBytes: number;
  indexKeysChanged: number;
  indexKeys: number;
}
const counted: Counted[] = [];

beforeAll(async () => {
  for (const pages of SIZES) counted.push(await countOneEdit(pages));
}, 900_000);
afterAll(() => redis.quit());

describe("what a one-page edit reads", () => {
  it("moving its sitemap entry, renders as many routes on a site four times larger, and reads one sitemap part's documents, not the site's", () => {
    console.log(
      "first edit of the day, counted:",
      counted
        .map((c) => `${c.pages} pages: ${c.firstRendered} rendered, ${c.firstListed} stubs listed`)
        .join("; "),
    );
    const [small, large] = counted as [Counted, Counted];
    expect(large.firstRendered).toBe(small.firstRendered);
    // The small site's sitemap is one file of its ~1,010 pages and price lists; the large one's is
    // divided into four parts of ~1,000: the part holding the page is read, about as many.
    expect(small.firstListed).toBeGreaterThan(small.pages);
    expect(large.firstListed).toBeLessThan(SITEMAP_PART_SIZE);
    expect(large.firstListed).toBeLessThan(large.pages / 3);
  });
});

describe("what a one-page edit writes", () => {
  it("is the same on a site four times larger: manifest root and one shard, the same index keys", () => {
    console.log(
      "one-page edit, counted:",
      counted
        .map(
          (c) =>
            `${c.pages} pages: ${c.rendered} rendered, ${c.metadataBytes} bytes under .pressroom/ (the manifest: ${c.manifestBytes}), ${c.indexKeysChanged} of ${c.indexKeys} index keys changed`,
        )
        .join("; "),
    );
    const [small, large] = counted as [Counted, Counted];
    expect(large.rendered).toBe(small.rendered);
    expect(large.indexKeysChanged).toBe(small.indexKeysChanged);
    for (const c of counted) expect(c.metadataBytes).toBeLessThan(SHARD_BOUND);
    expect(Math.abs(large.metadataBytes - small.metadataBytes)).toBeLessThan(SHARD_BOUND / 2);
    // What the whole manifest would have been: not what a publish writes.
    expect(large.manifestBytes).toBeGreaterThan(4 * large.metadataBytes);
  });
});

/** Builds a generated site of `pages`, edits one page twice, counts what the second edit wrote. */
async function countOneEdit(pages: number): Promise<Counted> {
  const prefix = `test-publish-writes-${pages}-${process.pid}-${Date.now()}`;
  const repo = join(process.env.TMPDIR ?? join(ROOT, ".tmp"), `publish-writes-repo-${pages}`);
  ensureGeneratedRepository(repo, pages, 10);
  const site = await tempDir("publish-writes-site");
  const webhook = await startWebhook(webhookOptions(prefix, SECRET), logger);
  let content: LocalPrismic | undefined;
  let worker: RunningWorker | undefined;
  try {
    content = await startLocalPrismic({
      seedDir: repo,
      webhookUrl: `${webhook.url}/webhooks/prismic`,
      webhookSecret: SECRET,
    });
    const config: PublisherConfig = {
      logLevel: "silent",
      prismic: contentConfig(content.endpoint),
      redisUrl: "redis://127.0.0.1:6379",
      queuePrefix: prefix,
      storage: { url: `file://${site.path}`, s3Endpoint: undefined, s3Region: "us-east-1" },
      siteUrl: "https://www.example.com",
    };
    worker = await startWorker(config, logger, { rootDir: ROOT });
    const service = content;
    await untilWorkerSettled(redis, prefix, service.store.masterRef, 600_000);
    const client = localContentClient(content.endpoint);
    const page = (
      await client.get({
        ref: await client.fetchMasterRef(),
        pageSize: 20,
        filters: ['[at(document.type, "page")]'],
      })
    ).results.find((doc) => doc.uid !== "home");
    if (!page) throw new Error("no page to edit");
    const edit = async (text: string) => {
      const answer = await fetch(`${service.url}/admin/publish`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ upsert: [{ ...page, data: { ...page.data, meta_description: text } }] }),
      });
      if (answer.status !== 200) throw new Error(await answer.text());
      return await untilPublished(prefix, service.store.masterRef);
    };
    const first = await edit("First edit of the day: its sitemap entry moves");
    const files = metadataFiles(site.path);
    const index = await indexDump(prefix);
    const published = await edit("Second edit, the same day");
    const after = await indexDump(prefix);
    const changed = [...new Set([...index.keys(), ...after.keys()])].filter(
      (key) => !index.get(key)?.equals(after.get(key) ?? Buffer.alloc(0)),
    );
    const now = metadataFiles(site.path);
    return {
      pages,
      firstRendered: first.rendered ?? -1,
      firstListed: first.listed ?? -1,
      rendered: published.rendered ?? -1,
      metadataBytes: metadataWritten(files, now),
      manifestBytes: [...now]
        .filter(([path]) => path === "manifest.json" || path.startsWith("manifest/"))
        .reduce((sum, [, file]) => sum + file.size, 0),
      indexKeysChanged: changed.length,
      indexKeys: after.size,
    };
  } finally {
    await worker?.close();
    await webhook.close();
    await content?.stop();
    await removeKeysUnder(redis, prefix);
    await site.remove();
  }
}

/** The last publish's summary once it describes `ref` (the worker writes it after its commit). */
async function untilPublished(prefix: string, ref: string): Promise<{ rendered?: number; listed?: number }> {
  let last: { ref?: string; rendered?: number; listed?: number } = {};
  await until(
    () => `a publish of ${ref}`,
    async () => {
      last = JSON.parse((await redis.get(`${prefix}:last-publish`)) ?? "{}");
      return last.ref === ref;
    },
    { timeoutMs: 60_000, intervalMs: 20 },
  );
  return last;
}

/** Every dependency index key's serialized value (DUMP), to tell which a publish changed. */
async function indexDump(prefix: string): Promise<Map<string, Buffer>> {
  const keys: string[] = [];
  let cursor = "0";
  do {
    const [next, found] = await redis.scan(cursor, "MATCH", `${prefix}:index:*`, "COUNT", 1000);
    cursor = next;
    keys.push(...found);
  } while (cursor !== "0");
  const pipeline = redis.pipeline();
  for (const key of keys) pipeline.dumpBuffer(key);
  const values = (await pipeline.exec()) ?? [];
  return new Map(keys.map((key, i) => [key, values[i]?.[1] as Buffer]));
}
