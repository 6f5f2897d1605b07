import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { afterEach, describe, expect, it } from "vitest";
import { tempDir } from "../support/temp-dir.ts";

const BIN = new URL("../../bin/pressroom.js", import.meta.url).pathname;
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
});

function run(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, LOG_LEVEL: "info", ...env },
    stdio: "pipe",
  });
  children.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk;
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk;
  });
  return {
    child,
    output: () => ({ stdout, stderr }),
    exit: async () => {
      const [code] = (await once(child, "exit")) as [number | null];
      return code;
    },
  };
}

describe("pressroom command", () => {
  it("`pressroom content` logs its URL, serves the demo repository, and stops cleanly on SIGTERM", async () => {
    const data = await tempDir("cli-content");
    const proc = run(["content"], { PORT: "0", CONTENT_DATA_DIR: data.path });
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no URL logged: ${JSON.stringify(proc.output())}`)),
        15_000,
      );
      proc.child.stdout?.on("data", () => {
        const match = /local content service listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(
          proc.output().stdout,
        );
        if (match?.[1]) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
    });
    const repository = (await (await fetch(`${url}/api/v2`)).json()) as { refs: { isMasterRef: boolean }[] };
    expect(repository.refs.some((r) => r.isMasterRef)).toBe(true);
    proc.child.kill("SIGTERM");
    expect(await proc.exit()).toBe(0);
    await data.remove();
  });

  it("refuses a bad configuration with exit code 78 and the fix", async () => {
    const proc = run(["content"], { PORT: "eighty" });
    expect(await proc.exit()).toBe(78);
    expect(proc.output().stderr).toContain(
      'PORT="eighty" is not an integer from 0 to 65535. Set PORT to a free TCP port',
    );
  });

  it("`pressroom purge` names what it needs: an edge (78, with the fix) and routes or --all (64)", async () => {
    const noEdge = run(["purge", "/about"], { CDN_PURGE_URL: "" });
    expect(await noEdge.exit()).toBe(78);
    expect(noEdge.output().stderr).toContain(
      "CDN_PURGE_URL is not set: no edge to purge. Set CDN_PURGE_URL to varnish://",
    );
    const nothing = run(["purge"], { CDN_PURGE_URL: "varnish://127.0.0.1:9" });
    expect(await nothing.exit()).toBe(64);
    const both = run(["purge", "--all", "/about"], { CDN_PURGE_URL: "varnish://127.0.0.1:9" });
    expect(await both.exit()).toBe(64);
    const notRoute = run(["purge", "about"], { CDN_PURGE_URL: "varnish://127.0.0.1:9" });
    expect(await notRoute.exit()).toBe(64);
    expect(notRoute.output().stderr).toContain("not a route: about");
  });

  it("lists the commands, and refuses an unknown one with exit code 64", async () => {
    const help = run(["--help"], {});
    expect(await help.exit()).toBe(0);
    expect(help.output().stdout).toMatch(/^\s+content\s+Start the local/m);
    const unknown = run(["deploy"], {});
    expect(await unknown.exit()).toBe(64);
    expect(unknown.output().stderr).toContain('unknown command "deploy"');
  });
});
