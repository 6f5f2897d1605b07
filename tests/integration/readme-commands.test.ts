import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_PORTS } from "#config";
import { type PressroomProcess, startPressroom } from "../support/pressroom-process.ts";
import { removeKeysUnder } from "../support/redis-keys.ts";
import { tempDir } from "../support/temp-dir.ts";

/**
 * The commands a newcomer copies from the README work as written. `npm start` runs as its own
 * process (what `package.json` says it runs) and the README's publish recipe runs against it, word
 * for word but for its two addresses: the README names the default ports, which the loader
 * listens on when nothing is set (checked here), while the test listens on free ones so that it
 * never meets another instance. Install and test are `.ci/run`'s own commands, checked as text.
 */
const ROOT = new URL("../../", import.meta.url).pathname;
const README = readFileSync(`${ROOT}README.md`, "utf8");
const REDIS_URL = "redis://127.0.0.1:6379";
const PREFIX = `test-readme-${process.pid}-${Date.now()}`;
const CONTENT = `http://127.0.0.1:${DEFAULT_PORTS.content}`;
const SITE = `http://127.0.0.1:${DEFAULT_PORTS.site}`;
const run = promisify(execFile);

/** The README's ```sh blocks, in order. */
function shellBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => (match[1] as string).trim());
}

/** The block after `## <heading>` (the first ```sh block of that section). */
function blockOf(heading: string): string {
  const start = README.indexOf(`\n## ${heading}\n`);
  expect(start, `README has no "## ${heading}"`).toBeGreaterThan(-1);
  const end = README.indexOf("\n## ", start + 1);
  const [block] = shellBlocks(README.slice(start, end < 0 ? undefined : end));
  expect(block, `README's "${heading}" has no sh block`).toBeDefined();
  return block as string;
}

describe("the README's commands", () => {
  it("install and test are what .ci/run runs; npm start is pressroom start", () => {
    const ci = readFileSync(`${ROOT}.ci/run`, "utf8");
    expect(blockOf("Run it")).toBe("npm install --no-audit --no-fund && npm start");
    expect(ci).toContain("\nnpm install --no-audit --no-fund\n");
    expect(blockOf("Test it")).toBe("npm test");
    expect(ci.trimEnd().endsWith("\nnpm test")).toBe(true);
    const pkg = JSON.parse(readFileSync(`${ROOT}package.json`, "utf8")) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts.start).toBe("node bin/pressroom.js start");
  });

  describe("the publish recipe, against a started instance", () => {
    let dir: { path: string; remove: () => Promise<void> };
    let started: PressroomProcess | undefined;
    let urls: { content: string; site: string };

    beforeAll(async () => {
      dir = await tempDir("readme");
      started = startPressroom(["start"], {
        HOST: "127.0.0.1",
        CONTENT_PORT: "0",
        SITE_PORT: "0",
        WEBHOOK_PORT: "0",
        PREVIEW_PORT: "0",
        REDIS_URL,
        QUEUE_PREFIX: PREFIX,
        STORAGE_URL: `file://${dir.path}/site`,
        CONTENT_DATA_DIR: `${dir.path}/content`,
        CONTACT_OUTBOX: `${dir.path}/outbox`,
      });
      await started.waitFor(/^Pressroom is running\./, 120_000);
      const line = started.records.find((record) => String(record.msg).startsWith("Pressroom is running"));
      urls = { content: String(line?.content).replace(/\/api\/v2$/, ""), site: String(line?.site) };
    }, 150_000);

    afterAll(async () => {
      await started?.stop();
      const redis = new Redis(REDIS_URL);
      await removeKeysUnder(redis, PREFIX);
      await redis.quit();
      await dir?.remove();
    }, 60_000);

    it("publishes the edit and prints the new title of /about", async () => {
      const recipe = shellBlocks(README).find((block) => block.includes("/admin/publish"));
      expect(recipe, "README has no publish recipe").toBeDefined();
      const text = recipe as string;
      // Only the two default addresses are replaced: any other address in it would stay unreplaced.
      expect(text.replaceAll(CONTENT, "").replaceAll(SITE, "")).not.toMatch(/https?:\/\//);
      const before = await (await fetch(`${urls.site}/about`)).text();
      expect(before).not.toContain("<title>About us");

      const script = text.replaceAll(CONTENT, urls.content).replaceAll(SITE, urls.site);
      const { stdout } = await run("bash", ["-e", "-o", "pipefail", "-c", script], {
        cwd: dir.path,
        timeout: 60_000,
      });
      expect(stdout.trim()).toMatch(/<title>About us · [^<]+<\/title>$/);
      expect(await (await fetch(`${urls.site}/about`)).text()).toMatch(/<title>About us · /);
    }, 90_000);
  });
});
