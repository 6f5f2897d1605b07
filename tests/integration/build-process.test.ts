/**
 * `pressroom build` (and `verify`) start themselves once more under V8's 4 MB young-generation
 * halves (bin/pressroom.js; docs/operations.md, "Memory"). What an operator relies on: the command
 * behaves as one process. Its exit code is the build's, a signal sent to it reaches the build, and
 * killing it (SIGKILL, which it cannot pass on) stops the build too: no build goes on writing
 * unseen. Real processes throughout; the content API is a server that accepts and never answers, so
 * that the build is caught waiting for its first answer.
 */
import { readFileSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILD_SEMI_SPACE_MB } from "#heap-growth";
import { runPressroom, startPressroom } from "../support/pressroom-process.ts";
import { tempDir } from "../support/temp-dir.ts";
import { until } from "../support/until.ts";

let silent: Server;
let endpoint = "";
const sockets = new Set<Socket>();
/** Connections the silent content API has accepted so far. */
let connections = 0;
let site: { path: string; remove: () => Promise<void> };

beforeAll(async () => {
  silent = createServer((socket) => {
    sockets.add(socket);
    connections++;
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  const address = silent.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  endpoint = `http://127.0.0.1:${address.port}/api/v2`;
  site = await tempDir("build-process-");
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => silent.close(resolve));
  await site.remove();
});

const env = (extra: Record<string, string> = {}) => ({
  PRISMIC_ENDPOINT: endpoint,
  STORAGE_URL: `file://${site.path}`,
  SITE_URL: "https://www.example.com",
  LOG_LEVEL: "warn",
  NODE_OPTIONS: "",
  ...extra,
});

/** The command line of each process `pid` started (Linux: /proc). */
function childrenOf(pid: number): { pid: number; args: string[] }[] {
  let listed = "";
  try {
    listed = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8");
  } catch {
    return [];
  }
  return listed
    .split(" ")
    .filter(Boolean)
    .map(Number)
    .map((child) => {
      try {
        return {
          pid: child,
          args: readFileSync(`/proc/${child}/cmdline`, "utf8").split("\0").filter(Boolean),
        };
      } catch {
        return { pid: child, args: [] };
      }
    });
}

/** Whether `pid` is still running (a zombie has ended: it waits only for its parent to read its status). */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

const buildChild = (pid: number) =>
  until(
    "the build started again",
    () => childrenOf(pid).find(({ args }) => args.some((arg) => arg.endsWith("bin/pressroom.js"))),
    { timeoutMs: 15_000 },
  );

describe("pressroom build as a process", () => {
  it("runs the build once more under 4 MB young-generation halves, and a SIGTERM sent to it reaches the build", async () => {
    const command = startPressroom(["build"], env());
    const child = await buildChild(command.pid);
    expect(child.args).toContain(`--max-semi-space-size=${BUILD_SEMI_SPACE_MB}`);
    expect(child.args.slice(-1)).toEqual(["build"]);
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      command.child.once("exit", (_, s) => resolve(s)),
    );
    command.child.kill("SIGTERM");
    // The command ends as the build ends: by the signal it was sent.
    expect(await exited).toBe("SIGTERM");
    await until("the build to end", () => (running(child.pid) ? undefined : true), { timeoutMs: 15_000 });
  }, 30_000);

  it("a SIGKILL, which it cannot pass on, stops the build it started", async () => {
    const asked = connections;
    const command = startPressroom(["build"], env());
    const child = await buildChild(command.pid);
    // The build is under way: it has asked the content API for the master ref.
    await until("the build to ask for content", () => (connections > asked ? true : undefined), {
      timeoutMs: 15_000,
    });
    command.child.kill("SIGKILL");
    await until(
      "the build to end after its command was killed",
      () => (running(child.pid) ? undefined : true),
      // Well within the content client's 10 s timeout, after which the build would end anyway.
      { timeoutMs: 3_000 },
    );
  }, 30_000);

  it("ends with the build's exit code, having said what the build said", async () => {
    // A configuration the build refuses: the same code, and the same words, as the build run directly.
    const refused = env({ STORAGE_URL: "ftp://example.com/site" });
    const twice = await runPressroom(["build"], refused);
    const direct = await runPressroom(["build"], { ...refused, NODE_OPTIONS: "--max-semi-space-size=4" });
    expect(twice.code).not.toBe(0);
    expect(twice).toEqual(direct);
    expect(twice.output).toMatch(/STORAGE_URL/);
  }, 30_000);

  it("builds in its own process when the operator gives the young generation's size", async () => {
    const command = startPressroom(["build"], env({ NODE_OPTIONS: "--max-semi-space-size=8" }));
    // Long enough to have started the build again had it meant to (the others do so within 1 s).
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(
      childrenOf(command.pid).filter(({ args }) => args.some((arg) => arg.endsWith("bin/pressroom.js"))),
    ).toEqual([]);
    await command.stop("SIGTERM");
  }, 30_000);
});
