import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { BUILD_SEMI_SPACE_MB } from "#heap-growth";

const ROOT = new URL("../../", import.meta.url).pathname;
const BIN = join(ROOT, "bin/pressroom.js");
const started: ChildProcess[] = [];
process.on("exit", () => {
  for (const child of started) if (child.exitCode === null) child.kill("SIGTERM");
});

export interface StartedProcess {
  pid: number;
  /** The first group of `ready`'s match in its output (e.g. the address it listens on). */
  match: string;
  child: ChildProcess;
}

/**
 * Starts `pressroom <args>` as its own OS process (production mode) and resolves when its standard
 * output matches `ready` (an info-level line: LOG_LEVEL must let it through); rejects if it exits
 * first or prints no such line within 5 minutes. Every process started is stopped by `stopAll`
 * (and on exit).
 */
export function startPressroom(
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
): Promise<StartedProcess> {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, LOG_LEVEL: "info", NODE_ENV: "production", ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  started.push(child);
  let out = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`pressroom ${args.join(" ")} printed no ${ready} within 5 minutes`)),
      300_000,
    );
    const onData = (chunk: Buffer) => {
      out += chunk;
      const match = ready.exec(out);
      if (match) {
        clearTimeout(timer);
        child.stdout?.off("data", onData);
        child.stdout?.resume(); // keep draining: a full pipe would stall the process
        out = "";
        resolve({ pid: child.pid as number, match: match[1] ?? "", child });
      }
    };
    child.stdout?.on("data", onData);
    child.once("exit", (code) => reject(new Error(`pressroom ${args.join(" ")} exited with ${code}`)));
  });
}

/** SIGTERM to one process, waiting (up to 10 s, then SIGKILL) for it to exit. */
export function stopProcess(child: ChildProcess): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      resolve();
    }, 10_000);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

/** Stops every process `startPressroom` started. */
export async function stopAll(): Promise<void> {
  await Promise.all(started.map(stopProcess));
}

/**
 * How `full-build-child.ts` is run, build and floor alike: with the young generation `pressroom build`
 * starts itself with (bin/pressroom.js, BUILD_SEMI_SPACE_MB), so that a benchmark measures the build
 * an operator runs, and the floor with the same heaps (it renders at the same speed either way:
 * 4.2 / 5.8 / 5.4 s of wall with the flag, 4.2 / 5.7 / 5.4 s without, 3 pairs).
 */
export const BUILD_CHILD_NODE_ARGS = [`--max-semi-space-size=${BUILD_SEMI_SPACE_MB}`, "--import", "tsx"];

/**
 * The NODE_OPTIONS a benchmark gives its worker processes: `WORKER_NODE_OPTIONS` when set (empty:
 * V8's defaults), else what docker-compose.yml's worker service sets (its young generation), so that
 * a benchmark measures workers as an operator runs them; `command`: how the benchmark's printed
 * command names them (nothing when they are compose's).
 */
export function workerNodeOptions(): { options: string; command: string } {
  const given = process.env.WORKER_NODE_OPTIONS;
  if (given !== undefined) return { options: given, command: `WORKER_NODE_OPTIONS='${given}' ` };
  const compose = parse(readFileSync(join(ROOT, "docker-compose.yml"), "utf8"), { merge: true }) as {
    services: { worker: { environment?: Record<string, string> } };
  };
  return { options: compose.services.worker.environment?.NODE_OPTIONS ?? "", command: "" };
}

/** What `full-build-child.ts build` prints: the build's summary, its peak RSS and CPU seconds. */
export interface BuildResult {
  summary: {
    routes: number;
    rendered: number;
    reused: number;
    written: number;
    durationMs: number;
    pagesPerSecond: number;
    renderThreads: number;
    /** Milliseconds per stage of the build (full-build.ts `lap`). */
    stages: Record<string, number>;
  };
  maxRssMB: number;
  /** The process's RSS before the build began (Node and the build's code). */
  startRssMB: number;
  /** Every thread of the build process, from the build's start to its end. */
  cpuSeconds: number;
  /** The main thread alone (Linux; NaN elsewhere). */
  mainCpuSeconds: number;
  /** The main thread's time in the kernel (the folder driver's writes; Linux only). */
  mainSystemSeconds: number;
  /** Each render thread (the busiest threads besides the main one; Linux only). */
  renderCpuSeconds: number[];
  /** Every other thread: V8's GC helpers, libuv's pool (file writes). */
  helperCpuSeconds: number;
  /** Of those, in the kernel (libuv's file writes, mostly). */
  helperSystemSeconds: number;
}

/**
 * The result line (`{"mode":…}`) of a full-build-child.ts run. Its loggers (a render thread's among
 * them) write to the same standard output and may flush after it, so the result is found by its shape,
 * not taken as the last line; a run that printed none fails with what it did print.
 */
export function childResult<T>(out: string): T {
  const line = out
    .split("\n")
    .reverse()
    .find((candidate) => candidate.startsWith('{"mode":'));
  if (!line) throw new Error(`full-build-child.ts printed no result:\n${out.slice(-2_000)}`);
  return JSON.parse(line) as T;
}

/** The middle value; on an even count, the mean of the two middle ones. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** CPU seconds `pid` has used so far, every thread: utime + stime of /proc/<pid>/stat, in clock ticks (USER_HZ, 100). */
export function cpuSeconds(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/** The peak RSS (VmHWM) of `pid` in MB, read from /proc. */
export function peakRssMB(pid: number): number | undefined {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Math.round(Number(match[1]) / 1024) : undefined;
  } catch {
    return undefined;
  }
}
