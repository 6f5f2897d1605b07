import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, statSync } from "node:fs";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, describe, expect, it } from "vitest";
import { ERROR_PAGE_FAILED_AS_WELL } from "#http/error-pages.ts";
import { tempDir } from "../support/temp-dir.ts";

/**
 * A folder the site server may not read (EACCES), met by the real `pressroom serve site` process.
 * Root reads everything, so as root the server runs as `nobody` (setpriv); otherwise chmod suffices.
 */
const ROOT = new URL("../../", import.meta.url).pathname;
const SETPRIV = "/usr/bin/setpriv";
const asRoot = process.getuid?.() === 0;
/** `nobody` must reach the checkout to run it: every folder above it open to others (a `mktemp -d` one is not). */
function othersCanReach(path: string): boolean {
  for (let dir = path; ; dir = dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) return false;
    if (dir === dirname(dir)) return true;
  }
}
const canRun = !asRoot || (existsSync(SETPRIV) && othersCanReach(ROOT));
if (!canRun)
  console.warn(
    `site-unreadable-folder: skipped: as root it runs the server as nobody, who cannot reach ${ROOT} (or ${SETPRIV} is missing)`,
  );
const SLOT = '<p class="error-page__reference" data-request-id="" hidden=""></p>';

let child: ChildProcess | undefined;
let folder: { path: string; remove: () => Promise<void> } | undefined;
afterAll(async () => {
  if (child?.exitCode === null) {
    child.kill("SIGTERM");
    await once(child, "exit");
  }
  if (folder) await chmod(join(folder.path, "site", "about"), 0o755).catch(() => {});
  await folder?.remove();
});

describe.skipIf(!canRun)("site server over a folder it cannot read", () => {
  it("answers the stored 500 page with a reference, the folder's path and errno only in the log", async () => {
    folder = await tempDir("unreadable");
    await chmod(folder.path, 0o755);
    const site = join(folder.path, "site");
    await mkdir(join(site, "about"), { recursive: true });
    await writeFile(join(site, "index.html"), "<h1>Home</h1>");
    await writeFile(join(site, "500.html"), `<h1>Stored 500 page</h1>${SLOT}`);
    await writeFile(join(site, "about", "index.html"), "<h1>About</h1>");
    await chmod(join(site, "about"), 0o000);
    const tmp = join(folder.path, "tmp");
    await mkdir(tmp, { mode: 0o1777 });
    await chmod(tmp, 0o1777);
    const command = [join(ROOT, "bin/pressroom.js"), "serve", "site"];
    const env = {
      ...process.env,
      TMPDIR: tmp,
      HOME: tmp,
      STORAGE_URL: `file://${site}`,
      HOST: "127.0.0.1",
      PORT: "0",
      LOG_LEVEL: "info",
      QUEUE_PREFIX: `test-unreadable-${process.pid}`,
    };
    child = asRoot
      ? spawn(SETPRIV, ["--reuid=65534", "--regid=65534", "--clear-groups", process.execPath, ...command], {
          env,
        })
      : spawn(process.execPath, command, { env });
    const lines: string[] = [];
    const url = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child?.stdout as NodeJS.ReadableStream }).on("line", (line) => {
        lines.push(line);
        const match = /site listening on (http:\/\/[\d.:]+)/.exec(line);
        if (match?.[1]) resolve(match[1]);
      });
      child?.once("exit", (code) => reject(new Error(`site exited with ${code}: ${lines.join("\n")}`)));
    });
    expect((await fetch(`${url}/`)).status).toBe(200);
    const response = await fetch(`${url}/about`);
    expect(response.status).toBe(500);
    expect(response.headers.get("retry-after")).toBeNull();
    const body = await response.text();
    expect(body).toContain("Stored 500 page");
    for (const internal of [site, "EACCES", "permission denied", "StorageError"])
      expect(body).not.toContain(internal);
    const id = /Reference: <code>([0-9a-f]{16})<\/code>/.exec(body)?.[1];
    expect(id, body).toBeTruthy();
    expect(response.headers.get("x-request-id")).toBe(id);
    await expect
      .poll(() => lines.find((line) => line.includes(id as string) && line.includes("EACCES")), {
        timeout: 5000,
      })
      .toBeTruthy();
    // JSON clients: the same status, no internals.
    const json = await fetch(`${url}/about`, { headers: { accept: "application/json" } });
    expect(json.status).toBe(500);
    expect(await json.text()).not.toContain("EACCES");
    // With 500.html unreadable too, the built-in fallback in the spec's words.
    execFileSync("chmod", ["000", join(site, "500.html")]);
    const fallback = await (await fetch(`${url}/about`)).text();
    expect(fallback).toContain(ERROR_PAGE_FAILED_AS_WELL);
    expect(fallback).toContain("Go back to home");
  }, 60_000);
});
