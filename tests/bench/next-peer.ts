import { type ChildProcess, spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { website } from "#website";
import { freePort } from "../support/free-port.ts";

/**
 * The Next 16 peer of `npm run bench:edit-live`: the app in tests/bench/next-peer/, installed at
 * bench time into a folder under TMPDIR (Next never enters the project's package.json), built with
 * `next build` and served by `next start` (production), on a free loopback port.
 */
const APP = new URL("./next-peer/", import.meta.url).pathname;
const ROOT = new URL("../../", import.meta.url).pathname;
const version = (name: string) =>
  (JSON.parse(readFileSync(join(ROOT, "node_modules", name, "package.json"), "utf8")) as { version: string })
    .version;

/** The packages of the peer: Next 16, and React and Prismic's libraries at Pressroom's own versions. */
export const PEER_PACKAGES = [
  `next@${process.env.NEXT_VERSION ?? "16"}`,
  `react@${version("react")}`,
  `react-dom@${version("react-dom")}`,
  `@prismicio/client@${version("@prismicio/client")}`,
  `@prismicio/react@${version("@prismicio/react")}`,
  // Next reads .tsx files only with TypeScript 5 and React's types present (no type check: next.config.mjs).
  "typescript@5",
  "@types/react@19",
  "@types/node@20",
];

export interface NextPeer {
  url: string;
  version: string;
  buildSeconds: number;
  child: ChildProcess;
}

/** Runs a command to its end; rejects with the end of its output if it fails or overruns. */
function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, timeoutMs: number) {
  return new Promise<string>((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    const keep = (chunk: Buffer) => {
      out = (out + chunk).slice(-20_000);
    };
    child.stdout?.on("data", keep);
    child.stderr?.on("data", keep);
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`${cmd} ${args.join(" ")} ended with ${code ?? signal}:\n${out.slice(-3_000)}`));
    });
  });
}

/** Installs the peer's packages into `dir` unless they are there already, at the same versions. */
export async function installNextPeer(dir: string): Promise<string> {
  const stamp = join(dir, "installed.json");
  const wanted = JSON.stringify(PEER_PACKAGES);
  if (!(existsSync(stamp) && readFileSync(stamp, "utf8") === wanted)) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    // A package.json of its own: without one, npm would walk up and install into the project.
    writeFileSync(join(dir, "package.json"), '{"name":"pressroom-next-peer","private":true}\n');
    await run("npm", ["install", "--no-audit", "--no-fund", ...PEER_PACKAGES], dir, process.env, 600_000);
    writeFileSync(stamp, wanted);
  }
  return (
    JSON.parse(readFileSync(join(dir, "node_modules/next/package.json"), "utf8")) as { version: string }
  ).version;
}

export interface NextPeerOptions {
  dir: string;
  endpoint: string;
  secret: string;
  /** `path` (per changed document) or `tag` (revalidateTag("prismic", "max")): app/api/revalidate/route.ts. */
  revalidate: string;
  /** `all`: every page rendered by `next build`; `none`: on first request. */
  prerender: string;
}

/** Copies the app's current files over the install, builds it and starts `next start`. */
export async function startNextPeer(options: NextPeerOptions): Promise<NextPeer> {
  const { dir } = options;
  const nextVersion = await installNextPeer(dir);
  for (const entry of ["app", "lib"]) rmSync(join(dir, entry), { recursive: true, force: true });
  rmSync(join(dir, ".next"), { recursive: true, force: true });
  cpSync(APP, dir, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "production",
    NEXT_TELEMETRY_DISABLED: "1",
    PRISMIC_ENDPOINT: options.endpoint,
    PRISMIC_ROUTES: JSON.stringify(website.routes.resolver),
    WEBHOOK_SECRET: options.secret,
    NEXT_REVALIDATE: options.revalidate,
    PEER_PRERENDER: options.prerender,
  };
  const next = join(dir, "node_modules/next/dist/bin/next");
  const started = performance.now();
  await run(process.execPath, [next, "build"], dir, env, 3_600_000);
  const buildSeconds = (performance.now() - started) / 1000;
  const port = await freePort();
  const child = spawn(process.execPath, [next, "start", "-H", "127.0.0.1", "-p", String(port)], {
    cwd: dir,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  process.on("exit", () => {
    if (child.exitCode === null) child.kill("SIGTERM");
  });
  await new Promise<void>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`next start printed no "Ready":\n${out}`)), 120_000);
    const onData = (chunk: Buffer) => {
      out += chunk;
      if (/Ready in/.test(out)) {
        clearTimeout(timer);
        child.stdout?.off("data", onData);
        child.stdout?.resume();
        resolve();
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", (chunk: Buffer) => {
      out += chunk;
    });
    child.once("exit", (code) => reject(new Error(`next start exited with ${code}:\n${out}`)));
  });
  return { url: `http://127.0.0.1:${port}`, version: nextVersion, buildSeconds, child };
}
