import { readdir, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_PORTS, variables } from "#config";
import { runPressroom } from "../support/pressroom-process.ts";
import { tempDir } from "../support/temp-dir.ts";

/**
 * Every command run with no configuration at all, as a newcomer types it beside `npm start`: it
 * works on what `npm start` runs (the local content service at 127.0.0.1:4100, ./data/site) or
 * refuses in one line naming the variable to set. Never a real Prismic repository, never a stack
 * trace. docs/configuration.md, "Defaults: the same as `npm start`".
 *
 * The local content service's default port is held by a listener that resets every connection: the
 * content API does not answer, and the connections it counts show where the commands went.
 */
const UNSET = Object.fromEntries(Object.keys(variables).map((name) => [name, ""]));
const ENDPOINT = `http://127.0.0.1:${DEFAULT_PORTS.content}/api/v2`;
const STACK_FRAME = /^\s+at /m;

let holder: Server;
let contentConnections = 0;
let cwd: Awaited<ReturnType<typeof tempDir>>;

beforeAll(async () => {
  holder = createServer((socket) => {
    contentConnections++;
    socket.resetAndDestroy();
  });
  await new Promise<void>((resolve, reject) => {
    holder.once("error", (error) =>
      reject(new Error(`port ${DEFAULT_PORTS.content} must be free for this test: ${error.message}`)),
    );
    holder.listen(DEFAULT_PORTS.content, "127.0.0.1", resolve);
  });
  cwd = await tempDir("unconfigured");
});

afterAll(async () => {
  await new Promise((resolve) => holder?.close(resolve));
  await cwd?.remove();
});

/** Runs `pressroom <args>` in an empty folder with every variable the loader reads unset. */
async function unconfigured(args: string[], set: Record<string, string> = {}) {
  const before = contentConnections;
  const { code, output } = await runPressroom(args, { ...UNSET, ...set }, { cwd: cwd.path });
  return { code, output, lines: output.trimEnd().split("\n"), reachedLocal: contentConnections > before };
}

const unanswered = (command: string) =>
  new RegExp(
    `^pressroom ${command}: the content API does not answer at ${ENDPOINT.replaceAll(".", "\\.")} \\(.+\\); PRISMIC_ENDPOINT names it$`,
  );

describe("commands without configuration", () => {
  it("`pressroom build` reads the local content service; when it does not answer: one line naming PRISMIC_ENDPOINT, exit 69", async () => {
    const run = await unconfigured(["build"]);
    expect(run.output).not.toMatch(STACK_FRAME);
    expect(run.lines).toHaveLength(1);
    expect(run.lines[0]).toMatch(unanswered("build"));
    expect(run.code).toBe(69);
    expect(run.reachedLocal).toBe(true);
    // Nothing written where `npm start` keeps its site.
    expect(await readdir(cwd.path)).toEqual([]);
  }, 60_000);

  it("`pressroom verify` says so before it takes the publish lock or reads storage", async () => {
    const run = await unconfigured(["verify"]);
    expect(run.output).not.toMatch(STACK_FRAME);
    expect(run.lines).toEqual([expect.stringMatching(unanswered("verify"))]);
    expect(run.code).toBe(69);
    expect(run.reachedLocal).toBe(true);
    // Without Redis it said nothing and retried for ever.
    const noRedis = await unconfigured(["verify"], { REDIS_URL: "redis://127.0.0.1:1" });
    expect(noRedis.output).not.toMatch(STACK_FRAME);
    expect(noRedis.lines).toEqual([
      expect.stringMatching(
        /^pressroom verify: Redis is unreachable at redis:\/\/127\.0\.0\.1:1 \(.+\); REDIS_URL names it$/,
      ),
    ]);
    expect(noRedis.code).toBe(69);
  }, 60_000);

  it("`pressroom plan` asks the same content API (Redis at its default address answers here)", async () => {
    const run = await unconfigured(["plan", "YAbc123"]);
    expect(run.output).not.toMatch(STACK_FRAME);
    expect(run.lines).toEqual([expect.stringMatching(unanswered("plan"))]);
    expect(run.code).toBe(69);
    expect(run.reachedLocal).toBe(true);
  }, 60_000);

  it("`pressroom status` reports, with the content API's line naming PRISMIC_ENDPOINT", async () => {
    const run = await unconfigured(["status"]);
    expect(run.output).not.toMatch(STACK_FRAME);
    expect(run.lines.filter((line) => line.includes("PRISMIC_ENDPOINT"))).toEqual([
      expect.stringMatching(
        /^master ref: +unreachable at http:\/\/127\.0\.0\.1:4100\/api\/v2 \(.+\); PRISMIC_ENDPOINT names the content API$/,
      ),
    ]);
    expect(run.code).toBe(0);
    expect(run.reachedLocal).toBe(true);
  }, 60_000);

  it("`pressroom purge` and `pressroom serve webhook` refuse in one line naming the variable, exit 78", async () => {
    const purge = await unconfigured(["purge", "/about"]);
    expect(purge.output).not.toMatch(STACK_FRAME);
    expect(purge.lines).toEqual([
      expect.stringMatching(/^pressroom purge: CDN_PURGE_URL is not set: .*Set CDN_PURGE_URL to /),
    ]);
    expect(purge.code).toBe(78);
    const webhook = await unconfigured(["serve", "webhook"]);
    expect(webhook.output).not.toMatch(STACK_FRAME);
    expect(webhook.lines).toEqual([
      expect.stringMatching(/^pressroom serve webhook: WEBHOOK_SECRET is not set: .*Set WEBHOOK_SECRET to /),
    ]);
    expect(webhook.code).toBe(78);
  }, 60_000);

  it("a PRESSROOM_WEBSITE that names no website module is one line, exit 78, for a command and a server", async () => {
    await writeFile(join(cwd.path, "not-a-site.ts"), "export const answer = 42;\n");
    for (const [args, file, why] of [
      [["build"], "missing-site.ts", /cannot load the website module .*missing-site\.ts/],
      [["serve", "worker"], "not-a-site.ts", /\S*not-a-site\.ts exports no `website`/],
    ] as const) {
      const run = await unconfigured([...args], { PRESSROOM_WEBSITE: file });
      expect(run.output).not.toMatch(STACK_FRAME);
      expect(run.lines).toEqual([
        expect.stringMatching(new RegExp(`^pressroom ${args.join(" ")}: PRESSROOM_WEBSITE: ${why.source}`)),
      ]);
      expect(run.code).toBe(78);
      expect(run.reachedLocal).toBe(false);
    }
  }, 60_000);

  it("a server whose port is in use refuses in one line naming the variable that sets it, exit 78", async () => {
    const content = await unconfigured(["content"]);
    expect(content.output).not.toMatch(STACK_FRAME);
    expect(content.lines).toEqual([
      "pressroom content: cannot listen on 127.0.0.1:4100: the port is in use; PORT sets it",
    ]);
    expect(content.code).toBe(78);
    const site = await unconfigured(["serve", "site"], { PORT: String(DEFAULT_PORTS.content) });
    expect(site.output).not.toMatch(STACK_FRAME);
    expect(site.lines).toEqual([
      "pressroom serve site: cannot listen on 127.0.0.1:4100: the port is in use; PORT sets it",
    ]);
    expect(site.code).toBe(78);
    // `start` logs each server it started (JSON lines) before the one that cannot listen.
    const start = await unconfigured(["start"]);
    expect(start.output).not.toMatch(STACK_FRAME);
    const refusal =
      /^pressroom start: cannot listen on 127\.0\.0\.1:(\d+): the port is in use; (\w+) sets it$/.exec(
        start.lines.at(-1) ?? "",
      );
    const byPort: Record<string, string> = {
      [DEFAULT_PORTS.content]: "CONTENT_PORT",
      [DEFAULT_PORTS.site]: "SITE_PORT",
      [DEFAULT_PORTS.webhook]: "WEBHOOK_PORT",
      [DEFAULT_PORTS.preview]: "PREVIEW_PORT",
    };
    expect(refusal, start.output).not.toBeNull();
    expect(refusal?.[2]).toBe(byPort[refusal?.[1] ?? ""]);
    expect(start.code).toBe(78);
  }, 90_000);
});
