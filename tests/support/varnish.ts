import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { freePort } from "./free-port.ts";
import { tempDir } from "./temp-dir.ts";
import { until } from "./until.ts";

export const VARNISHD = "/usr/sbin/varnishd";
const XKEY = "/usr/lib/x86_64-linux-gnu/varnish/vmods/libvmod_xkey.so";
const SHIPPED_VCL = new URL("../../infra/varnish/default.vcl", import.meta.url);

/** Whether a real varnishd with xkey runs here (Debian's `varnish` and `varnish-modules`). */
export const hasVarnish = existsSync(VARNISHD) && existsSync(XKEY);

export interface Varnish {
  /** `http://127.0.0.1:<port>`: where visitors (and purges) reach it. */
  url: string;
  port: number;
  pid: number;
  /** Freezes the whole varnishd (manager and cache process): connections wait, nothing answers. */
  pause(): void;
  resume(): void;
  /** varnishlog's record of what happened so far (requests grouped), for a failing test's message. */
  log(query?: string): string;
  /** varnishstat's MAIN counters (`cache_hit`, `cache_miss`, `backend_req`, …). */
  counters(): Record<string, number>;
  /** SIGTERM (SIGKILL after 10 s), waits for the exit, removes its folder. */
  stop(): Promise<void>;
}

/**
 * The shipped VCL with its one operator-edited part rewritten for a test: the backend's host and
 * port, and the purgers ACL. Throws when the shipped file no longer has those lines, so a change to
 * it cannot silently leave the tests running another configuration.
 */
export function testVcl(backend: { host: string; port: number }, purgers: readonly string[]): string {
  const shipped = readFileSync(SHIPPED_VCL, "utf8");
  let vcl = shipped.replace(/(backend site \{[^}]*?\.host = )"[^"]*";/, `$1"${backend.host}";`);
  vcl = vcl.replace(/(backend site \{[^}]*?\.port = )"[^"]*";/, `$1"${backend.port}";`);
  vcl = vcl.replace(
    /acl purgers \{[^}]*\}/,
    `acl purgers {\n${purgers.map((a) => `    "${a}";`).join("\n")}\n}`,
  );
  if (!vcl.includes(`.host = "${backend.host}";`) || !vcl.includes(`.port = "${backend.port}";`))
    throw new Error("infra/varnish/default.vcl: backend site { .host …; .port …; } not found");
  if (!purgers.every((a) => vcl.includes(`"${a}";`)))
    throw new Error("infra/varnish/default.vcl: acl purgers { … } not found");
  return vcl;
}

/**
 * Starts a real varnishd in the foreground with the shipped VCL (backend and ACL rewritten), its own
 * working folder under TMPDIR, listening on 127.0.0.1 only, no admin port. `port` reuses an address
 * (a restart).
 */
export async function startVarnish(options: {
  backend: { host: string; port: number };
  purgers: readonly string[];
  port?: number;
}): Promise<Varnish> {
  const folder = await tempDir("varnish");
  const workdir = join(folder.path, "n");
  await mkdir(workdir, { recursive: true });
  const vclPath = join(folder.path, "default.vcl");
  await writeFile(vclPath, testVcl(options.backend, options.purgers));
  const port = options.port ?? (await freePort());
  const child: ChildProcess = spawn(
    VARNISHD,
    [
      "-F",
      "-n",
      workdir,
      "-f",
      vclPath,
      "-a",
      `127.0.0.1:${port}`,
      "-T",
      "none",
      // No jail: the folder is the test's (mode 0700), and the test may run as root or not.
      "-j",
      "none",
      "-s",
      "malloc,64m",
      // A fetch the site server does not answer fails fast (the origin-down case).
      "-p",
      "connect_timeout=1",
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = once(child, "exit");
  const url = `http://127.0.0.1:${port}`;
  try {
    await until(
      () => `varnishd to answer:\n${output}`,
      async () => {
        if (child.exitCode !== null) throw new Error(`varnishd exited (${child.exitCode}):\n${output}`);
        // Any answer will do: the ACL refuses this PURGE or takes it, the listener is up either way.
        return fetch(url, { method: "PURGE", signal: AbortSignal.timeout(1_000) })
          .then(() => true)
          .catch(() => false);
      },
      { timeoutMs: 20_000, intervalMs: 100 },
    );
  } catch (error) {
    child.kill("SIGKILL");
    throw error;
  }
  const pid = child.pid as number;
  /** The manager and its cache process: both started by this helper. */
  const processes = () => [
    pid,
    ...execFileSync("pgrep", ["-P", String(pid)], { encoding: "utf8" })
      .split("\n")
      .filter(Boolean)
      .map(Number),
  ];
  return {
    url,
    port,
    pid,
    pause() {
      for (const p of processes()) process.kill(p, "SIGSTOP");
    },
    resume() {
      for (const p of processes()) process.kill(p, "SIGCONT");
    },
    log(query) {
      return execFileSync(
        "varnishlog",
        ["-n", workdir, "-d", "-g", "request", ...(query ? ["-q", query] : [])],
        { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
      );
    },
    counters() {
      const json = JSON.parse(
        execFileSync("varnishstat", ["-n", workdir, "-1", "-j"], { encoding: "utf8" }),
      ) as { counters?: Record<string, { value: number }> } & Record<string, { value: number }>;
      const all = json.counters ?? json;
      const main: Record<string, number> = {};
      for (const [name, counter] of Object.entries(all))
        if (name.startsWith("MAIN.")) main[name.slice(5)] = counter.value;
      return main;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        for (const p of processes()) process.kill(p, "SIGCONT");
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
        await exited;
        clearTimeout(timer);
      }
      await folder.remove();
    },
  };
}
