#!/usr/bin/env node
// The `pressroom` command. Sources are TypeScript, run through tsx's loader
// so that there is no build step between an edit and a run.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const command = process.argv[2];
const oneShot = command === "build" || command === "verify";

/**
 * `pressroom build` and `pressroom verify` run with halves of 4 MB for the main thread's young
 * generation (V8's `--max-semi-space-size`), as the render threads have theirs. V8 sizes a heap when
 * the thread starts, so a process started without the flag starts itself again with it, once, and
 * does nothing else: it passes its signals on and ends as the command ends. Given on the command line
 * or in NODE_OPTIONS, the operator's value stands. Why 4: docs/decisions/004-semi-space-flag.md.
 */
const BUILD_SEMI_SPACE_MB = 4; // BUILD_SEMI_SPACE_MB of services/shared/src/heap-growth.ts
const semiSpaceGiven = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? "").split(/\s+/)].some((arg) =>
  /^--max[-_]semi[-_]space[-_]size(=|$)/.test(arg),
);

// A build being debugged stays in the process the debugger is attached to.
const inspected = process.execArgv.some((arg) => arg.startsWith("--inspect"));

/** Set for the command started again, and only for it (it takes it out of its environment). */
const SUPERVISED = "PRESSROOM_STARTED_BY_PRESSROOM";

if (oneShot && !semiSpaceGiven && !inspected) {
  const child = spawn(
    process.execPath,
    [
      ...process.execArgv,
      `--max-semi-space-size=${BUILD_SEMI_SPACE_MB}`,
      fileURLToPath(import.meta.url),
      ...process.argv.slice(2),
    ],
    // The channel only tells the command when this process is gone (below): nothing is sent on it.
    { stdio: ["inherit", "inherit", "inherit", "ipc"], env: { ...process.env, [SUPERVISED]: "1" } },
  );
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => child.kill(signal));
  child.on("error", (error) => {
    console.error(`pressroom ${command}: could not start: ${error.message}`);
    process.exit(1);
  });
  child.on("exit", (code, signal) => {
    if (signal === null) process.exit(code ?? 1);
    // Ended by a signal: this process ends by the same one, as if it had been the command.
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  });
} else {
  const supervised = process.env[SUPERVISED] === "1";
  delete process.env[SUPERVISED];
  if (supervised) {
    // Started by the process above: if it is killed (SIGKILL passes nothing on), nothing supervises
    // this one any more, and a build must not go on writing unseen. The channel's end says so.
    if (!process.connected) process.kill(process.pid, "SIGKILL");
    process.channel?.unref();
    process.once("disconnect", () => process.kill(process.pid, "SIGKILL"));
  }
  const { register } = await import("tsx/esm/api");
  // React's development build is several times slower and not what visitors get:
  // every process renders as production unless told otherwise.
  process.env.NODE_ENV ??= "production";
  register();
  // Every process collects its heaps before they grow 30 % past what they kept (V8 lets a main thread
  // grow up to 4×), a one-shot build 100 %: services/shared/src/heap-growth.ts, docs/operations.md "Memory".
  const { BUILD_HEAP_GROWING_PERCENT, limitHeapGrowth } = await import("#heap-growth");
  limitHeapGrowth(oneShot ? BUILD_HEAP_GROWING_PERCENT : undefined);
  const { main } = await import("./cli.ts");
  process.exitCode = await main(process.argv.slice(2), process.env);
}
