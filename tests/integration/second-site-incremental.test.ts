/**
 * Incremental ≡ full for the second test website (tests/support/second-site), as
 * incremental-equals-full.test.ts holds it for the demo: after seeded random edits of posts, the
 * `site_config` singleton and `moved` addresses, delivered late, out of order and twice, the
 * published folder holds byte for byte what `pressroom build` of that website writes, and nothing
 * else. The engine runs as OS processes (`pressroom serve webhook`, `pressroom serve worker`) with
 * PRESSROOM_WEBSITE set; nothing of the engine knows the website.
 */
import type { PrismicDocument } from "@prismicio/client";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, it } from "vitest";
import { mulberry32 } from "#local-prismic/generate.ts";
import { type ChaoticDeliveries, startChaoticDeliveries } from "../support/chaotic-deliveries.ts";
import type { PressroomProcess } from "../support/pressroom-process.ts";
import { removeKeysUnder } from "../support/redis-keys.ts";
import {
  engineEnv,
  expectEqualsFullBuild,
  listening,
  moved,
  post,
  publish,
  siteConfig,
  startPressroom,
  startSecondSiteContent,
  untilIdle,
} from "../support/second-site-stack.ts";
import { tempDir } from "../support/temp-dir.ts";

const PREFIX = `test-second-ief-${process.pid}-${Date.now()}`;
const SECRET = "second-site-ief-secret";
const SITE_URL = "https://blog.example";
const SEED = Number(process.env.IEF_SEED ?? 20261128);
const EDITS = Number(process.env.SECOND_SITE_EDITS ?? 30);

let content: Awaited<ReturnType<typeof startSecondSiteContent>>;
let storage: { path: string; remove: () => Promise<void> };
let redis: Redis;
let chaos: ChaoticDeliveries;
let env: Record<string, string>;
const processes: PressroomProcess[] = [];

beforeAll(async () => {
  storage = await tempDir("second-ief-storage");
  redis = new Redis({ maxRetriesPerRequest: null });
  env = engineEnv(PREFIX, storage.path, "", SITE_URL);
  const webhook = startPressroom(
    ["serve", "webhook"],
    { ...env, WEBHOOK_SECRET: SECRET },
    { captureStderr: true },
  );
  processes.push(webhook);
  const receiver = `${await listening(webhook)}/webhooks/prismic`;
  chaos = await startChaoticDeliveries(receiver, mulberry32(SEED));
  content = await startSecondSiteContent({ webhookUrl: chaos.url, webhookSecret: SECRET });
  env = engineEnv(PREFIX, storage.path, content.endpoint, SITE_URL);
  await publish(content.url, {
    upsert: [
      siteConfig("Field Notes", "Written by hand"),
      post("PostSeed00000001", "first", "First", { date: "2026-01-01", quote: "Begin" }),
      post("PostSeed00000002", "second", "Second", { date: "2026-01-02" }),
    ],
  });
  processes.push(startPressroom(["serve", "worker"], env, { captureStderr: true }));
}, 120_000);

afterAll(async () => {
  for (const running of processes) await running.stop().catch(() => undefined);
  await content?.stop();
  await chaos?.close();
  if (redis) {
    await removeKeysUnder(redis, PREFIX);
    await removeKeysUnder(redis, `${PREFIX}-reference`);
    await redis.quit();
  }
  await storage?.remove();
});

async function settledEqualsFullBuild() {
  await chaos.settled();
  await untilIdle(redis, PREFIX, () => content.store.masterRef);
  await expectEqualsFullBuild(storage.path, env);
}

describe("incremental ≡ full, second website", () => {
  it("starts from a diff build when the index is missing", async () => {
    await settledEqualsFullBuild();
  }, 180_000);

  it(`stays equal to a full build through ${EDITS} random edits delivered out of order and twice (seed ${SEED})`, async () => {
    const random = mulberry32(SEED + 1);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
    const posts = new Map<string, PrismicDocument>(
      ["PostSeed00000001", "PostSeed00000002"].map((id, i) => [
        id,
        post(id, i === 0 ? "first" : "second", i === 0 ? "First" : "Second", { date: `2026-01-0${i + 1}` }),
      ]),
    );
    const removed = new Map<string, PrismicDocument>();
    const redirects = new Map<string, PrismicDocument>();
    let created = 0;
    const id = (kind: string) => `${kind}${String(++created).padStart(16 - kind.length, "0")}`;
    const upsert = (doc: PrismicDocument) => publish(content.url, { upsert: [doc] });

    for (let step = 0; step < EDITS; step++) {
      const roll = random();
      const live = [...posts.values()];
      if (roll < 0.2) {
        const doc = post(id("Post"), `post-${created}`, `Post ${created}`, {
          date: `2026-02-${String(1 + Math.floor(random() * 27)).padStart(2, "0")}`,
          ...(random() < 0.5 ? { quote: `Quote ${step}` } : {}),
        });
        posts.set(doc.id, doc);
        await upsert(doc);
      } else if (roll < 0.4) {
        const doc = pick(live);
        const edited = {
          ...doc,
          data: { ...doc.data, title: [{ type: "heading1", text: `Edit ${step}`, spans: [] }] },
        };
        posts.set(doc.id, edited);
        await upsert(edited);
      } else if (roll < 0.52) {
        const doc = pick(live);
        const renamed = { ...doc, uid: `${String(doc.uid).replace(/-v\d+$/, "")}-v${step}` };
        posts.set(doc.id, renamed);
        await upsert(renamed);
      } else if (roll < 0.62 && live.length > 2) {
        const doc = pick(live);
        posts.delete(doc.id);
        removed.set(doc.id, doc);
        await publish(content.url, { remove: [doc.id] });
      } else if (roll < 0.7 && removed.size > 0) {
        const doc = pick([...removed.values()]);
        removed.delete(doc.id);
        const back = live.some((p) => p.uid === doc.uid) ? { ...doc, uid: `${doc.uid}-back-${step}` } : doc;
        posts.set(doc.id, back);
        await upsert(back);
      } else if (roll < 0.78) {
        await upsert(siteConfig("Field Notes", `Footer ${step}`));
      } else if (roll < 0.9 || redirects.size === 0) {
        // A moved address: new, or an existing one pointed at another post (live or not).
        const existing = redirects.size > 0 && random() < 0.5 ? pick([...redirects.values()]) : undefined;
        const target = pick([...live, ...removed.values()]);
        const doc = moved(
          existing?.id ?? id("Moved"),
          existing ? String(existing.data.from) : `/old-${step}`,
          target,
        );
        redirects.set(doc.id, doc);
        await upsert(doc);
      } else {
        const doc = pick([...redirects.values()]);
        redirects.delete(doc.id);
        await publish(content.url, { remove: [doc.id] });
      }
      // Sometimes let the pipeline catch up, so that publishes are both batched and alone.
      if (random() < 0.2) await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 300)));
      if (step === Math.floor(EDITS / 2)) await settledEqualsFullBuild();
    }
    await settledEqualsFullBuild();
  }, 600_000);
});
