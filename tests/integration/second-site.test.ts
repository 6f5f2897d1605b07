/**
 * The engine publishes a website that is not the demo: the second test website
 * (tests/support/second-site: posts at `/blog/{uid}`, a `/blog/` listing, a `site_config`
 * singleton, one slice, `moved` addresses), chosen with PRESSROOM_WEBSITE, with no change to the
 * engine. Every part runs as its own OS process (`pressroom build`, `pressroom serve
 * webhook|worker|site|preview`), over the local content service started on that website's models.
 */
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { storedManifest } from "../support/manifest.ts";
import type { PressroomProcess } from "../support/pressroom-process.ts";
import { removeKeysUnder } from "../support/redis-keys.ts";
import {
  engineEnv,
  expectEqualsFullBuild,
  listening,
  moved,
  post,
  pressroomBuild,
  publish,
  siteConfig,
  startPressroom,
  startSecondSiteContent,
  storeAt,
  untilIdle,
} from "../support/second-site-stack.ts";
import { tempDir } from "../support/temp-dir.ts";

const PREFIX = `test-second-site-${process.pid}-${Date.now()}`;
const SECRET = "second-site-webhook-secret";
const SITE_URL = "https://blog.example";

let content: Awaited<ReturnType<typeof startSecondSiteContent>>;
let storage: { path: string; remove: () => Promise<void> };
let redis: Redis;
let env: Record<string, string>;
let siteUrl: string;
let previewUrl: string;
const processes: PressroomProcess[] = [];

const start = (args: string[], extra: Record<string, string> = {}) => {
  const started = startPressroom(args, { ...env, ...extra }, { captureStderr: true });
  processes.push(started);
  return started;
};
const idle = () => untilIdle(redis, PREFIX, () => content.store.masterRef);
const stored = async (key: string) => (await readStore(key))?.body.toString("utf8");
async function readStore(key: string) {
  const store = storeAt(storage.path);
  try {
    return await store.get(key);
  } finally {
    await store.close();
  }
}
async function manifestNow() {
  const store = storeAt(storage.path);
  try {
    return await storedManifest(store);
  } finally {
    await store.close();
  }
}
const visit = (path: string) => fetch(`${siteUrl}${path}`, { redirect: "manual" });

const hello = post("PostHello0000001", "hello", "Hello, world", { date: "2026-03-01", quote: "Start small" });
const second = post("PostSecond000001", "second", "A second post", { date: "2026-03-05" });

beforeAll(async () => {
  storage = await tempDir("second-site-storage");
  redis = new Redis({ maxRetriesPerRequest: null });
  env = engineEnv(PREFIX, storage.path, "", SITE_URL);
  const webhook = start(["serve", "webhook"], { WEBHOOK_SECRET: SECRET });
  content = await startSecondSiteContent({
    webhookUrl: `${await listening(webhook)}/webhooks/prismic`,
    webhookSecret: SECRET,
  });
  env = engineEnv(PREFIX, storage.path, content.endpoint, SITE_URL);
  // Announced to the receiver; no worker runs yet: `pressroom build` publishes it first.
  await publish(content.url, { upsert: [siteConfig("Field Notes", "Written by hand"), hello, second] });
}, 120_000);

afterAll(async () => {
  for (const running of processes) await running.stop().catch(() => undefined);
  await content?.stop();
  if (redis) {
    await removeKeysUnder(redis, PREFIX);
    await removeKeysUnder(redis, `${PREFIX}-reference`);
    await redis.quit();
  }
  await storage?.remove();
});

describe("the engine publishes a second website (PRESSROOM_WEBSITE)", () => {
  it("pressroom build: every route of the second site, and nothing of the demo", async () => {
    const output = await pressroomBuild(env);
    expect(output).toMatch(/Built \d+ routes/);
    expect(await stored("blog/hello/index.html")).toContain("<h1>Hello, world</h1>");
    expect(await stored("blog/hello/index.html")).toContain("<blockquote><p>Start small</p></blockquote>");
    expect(await stored("blog/index.html")).toContain('<a href="/blog/second">A second post</a>');
    expect(await stored("index.html")).toContain("Written by hand");
    expect(await stored("sitemap.xml")).toContain(`<loc>${SITE_URL}/blog/hello</loc>`);
    expect(await stored("robots.txt")).toContain(`Sitemap: ${SITE_URL}/sitemap.xml`);
    for (const key of ["404.html", "500.html", "503.html"])
      expect(await stored(key), key).toContain("Field Notes");
    const manifest = await manifestNow();
    expect(Object.keys(manifest?.routes ?? {}).sort()).toEqual(
      [
        "/",
        "/blog/",
        "/blog/hello",
        "/blog/second",
        "/robots.txt",
        "/sitemap.xml",
        "404",
        "500",
        "503",
      ].sort(),
    );
    expect(await stored("price-list/index.html")).toBeUndefined();
  }, 120_000);

  it("the site server serves it", async () => {
    siteUrl = await listening(start(["serve", "site"]));
    const page = await visit("/blog/hello");
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("<h1>Hello, world</h1>");
    expect((await visit("/blog/")).status).toBe(200);
    const missing = await visit("/blog/nothing-here");
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain("This page does not exist");
  }, 60_000);

  it("a worker publishes a new post incrementally: its page, /blog/ and the sitemap are fresh", async () => {
    start(["serve", "worker"]);
    await idle();
    await expectEqualsFullBuild(storage.path, env);
    const third = post("PostThird0000001", "third", "Third time lucky", { date: "2026-03-09" });
    await publish(content.url, { upsert: [third] });
    await idle();
    expect(await stored("blog/third/index.html")).toContain("<h1>Third time lucky</h1>");
    expect(await stored("blog/index.html")).toContain('<a href="/blog/third">Third time lucky</a>');
    expect(await stored("index.html")).toContain('<a href="/blog/third">');
    expect(await stored("sitemap.xml")).toContain(`<loc>${SITE_URL}/blog/third</loc>`);
    expect((await visit("/blog/third")).status).toBe(200);
    await expectEqualsFullBuild(storage.path, env);
  }, 180_000);

  it("the site_config singleton re-renders every page that shows it", async () => {
    await publish(content.url, { upsert: [siteConfig("Field Notes", "Now printed")] });
    await idle();
    for (const key of ["index.html", "blog/index.html", "blog/hello/index.html", "404.html"])
      expect(await stored(key), key).toContain("Now printed");
    await expectEqualsFullBuild(storage.path, env);
  }, 120_000);

  it("a renamed post: the old URL redirects to the new one, which answers 200", async () => {
    await publish(content.url, { upsert: [{ ...second, uid: "second-thoughts" }] });
    await idle();
    const old = await visit("/blog/second");
    expect(old.status).toBe(301);
    expect(old.headers.get("location")).toBe("/blog/second-thoughts");
    expect((await visit("/blog/second-thoughts")).status).toBe(200);
    expect(await stored("blog/index.html")).toContain('<a href="/blog/second-thoughts">');
    expect(await stored("sitemap.xml")).not.toContain("/blog/second<");
    await expectEqualsFullBuild(storage.path, env);
  }, 120_000);

  it("an editor's moved address (the site's own redirect type) follows its post", async () => {
    await publish(content.url, { upsert: [moved("MovedHello000001", "/hello", hello)] });
    await idle();
    expect((await manifestNow())?.redirects?.["/hello"]).toBe("/blog/hello");
    const answer = await visit("/hello");
    expect(answer.status).toBe(301);
    expect(answer.headers.get("location")).toBe("/blog/hello");
    await publish(content.url, { upsert: [{ ...hello, uid: "hello-again" }] });
    await idle();
    expect((await manifestNow())?.redirects?.["/hello"]).toBe("/blog/hello-again");
    await expectEqualsFullBuild(storage.path, env);
  }, 120_000);

  it("the preview server shows a draft post at the editor's ref", async () => {
    previewUrl = await listening(start(["serve", "preview"]));
    const draft = post("PostDraft0000001", "draft-post", "Not published yet", {
      quote: "Only editors see this",
    });
    const response = await fetch(`${content.url}/admin/drafts/${draft.id}`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(draft),
    });
    expect(response.ok).toBe(true);
    const { token } = (await response.json()) as { token: string };
    const entry = await fetch(
      `${previewUrl}/api/preview?token=${encodeURIComponent(token)}&documentId=${draft.id}`,
      { redirect: "manual" },
    );
    expect(entry.status).toBe(302);
    expect(entry.headers.get("location")).toBe("/blog/draft-post");
    const cookie = (entry.headers.get("set-cookie") ?? "").split(";")[0] as string;
    const page = await fetch(`${previewUrl}/blog/draft-post`, { headers: { cookie } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("<h1>Not published yet</h1>");
    expect(html).toContain("Only editors see this");
    // The published site knows nothing of it.
    expect((await visit("/blog/draft-post")).status).toBe(404);
    expect(await stored("blog/draft-post/index.html")).toBeUndefined();
  }, 120_000);
});
