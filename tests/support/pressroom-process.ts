import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";

const BIN = new URL("../../bin/pressroom.js", import.meta.url).pathname;

export interface PressroomProcess {
  child: ChildProcess;
  pid: number;
  /** Every JSON log line's `msg` so far. */
  messages: string[];
  /** Every JSON log line so far, parsed (a line that is not JSON: `{msg: line}`). */
  records: Record<string, unknown>[];
  /** Every line as written, with its stream (stderr's only with `captureStderr`). */
  lines: { stream: "stdout" | "stderr"; text: string }[];
  /** Resolves with the first log line whose `msg` matches, from before or after the call. */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray>;
  /** SIGTERM (or `signal`), then waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Resolves with the exit code once the process ended on its own (a command such as `build`). */
  exited(): Promise<number | null>;
}

/**
 * `node bin/pressroom.js <args>` as its own OS process, as a container runs it; JSON logs on stdout.
 * `root`: another checkout to run, from its folder (a deploy of other code: deployed-copy.ts);
 * `captureStderr`: read stderr too (into `lines` and `records`) instead of passing it through.
 */
export function startPressroom(
  args: string[],
  env: Record<string, string>,
  options: { root?: string; captureStderr?: boolean } = {},
): PressroomProcess {
  const bin = options.root ? `${options.root}/bin/pressroom.js` : BIN;
  const child = spawn(process.execPath, [bin, ...args], {
    ...(options.root ? { cwd: options.root } : {}),
    env: { ...process.env, LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", options.captureStderr ? "pipe" : "inherit"],
  });
  const messages: string[] = [];
  const records: Record<string, unknown>[] = [];
  const written: { stream: "stdout" | "stderr"; text: string }[] = [];
  const waiters = new Set<() => void>();
  const buffered = { stdout: "", stderr: "" };
  const read = (stream: "stdout" | "stderr") => (chunk: Buffer) => {
    buffered[stream] += chunk.toString("utf8");
    const lines = buffered[stream].split("\n");
    buffered[stream] = lines.pop() ?? "";
    for (const line of lines) {
      written.push({ stream, text: line });
      try {
        const record = JSON.parse(line) as Record<string, unknown>;
        records.push(record);
        messages.push(String(record.msg ?? ""));
      } catch {
        records.push({ msg: line });
        messages.push(line);
      }
    }
    for (const wake of waiters) wake();
  };
  child.stdout?.on("data", read("stdout"));
  child.stderr?.on("data", read("stderr"));
  const exited = once(child, "exit");
  return {
    child,
    pid: child.pid as number,
    messages,
    records,
    lines: written,
    waitFor(pattern, timeoutMs) {
      return new Promise((resolve, reject) => {
        const check = () => {
          for (const message of messages) {
            const match = pattern.exec(message);
            if (match) {
              done();
              resolve(match);
              return;
            }
          }
          if (child.exitCode !== null) {
            done();
            reject(
              new Error(`pressroom ${args.join(" ")} exited (${child.exitCode}) before logging ${pattern}`),
            );
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`pressroom ${args.join(" ")} did not log ${pattern} within ${timeoutMs} ms`));
        }, timeoutMs);
        const onExit = () => check();
        const done = () => {
          clearTimeout(timer);
          waiters.delete(check);
          child.off("exit", onExit);
        };
        waiters.add(check);
        child.on("exit", onExit);
        check();
      });
    },
    async exited() {
      await exited;
      return child.exitCode;
    },
    async stop(signal = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

/**
 * `node bin/pressroom.js <args>` run to its end, as an operator runs a command such as `build`:
 * its exit code and everything it printed (stdout and stderr, in the order they came). `root`: as
 * for `startPressroom`.
 */
export async function runPressroom(
  args: string[],
  env: Record<string, string>,
  /** `root`: another checkout to run, from its folder; `cwd`: the folder to run this one in. */
  options: { root?: string; cwd?: string } = {},
): Promise<{ code: number | null; output: string }> {
  const bin = options.root ? `${options.root}/bin/pressroom.js` : BIN;
  const child = spawn(process.execPath, [bin, ...args], {
    ...(options.root ? { cwd: options.root } : {}),
    ...(options.cwd ? { cwd: options.cwd } : {}),
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const collect = (chunk: Buffer) => {
    output += chunk;
  };
  child.stdout.on("data", collect);
  child.stderr.on("data", collect);
  const [code] = (await once(child, "exit")) as [number | null];
  return { code, output };
}
