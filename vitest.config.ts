import { defineConfig } from "vitest/config";

// tests/faults: `npm run test:faults` (vitest.faults.config.ts), too long for every run.
const EXCLUDE = ["tests/bench/**", "tests/faults/**", "node_modules/**"];

/** The browser tests (Chromium), which run one at a time too: see the `one-at-a-time-browser` project. */
const BROWSER = "tests/e2e/**/*.test.ts";

/**
 * Files that run one at a time, after all the others: each starts Chromium, kills or freezes a
 * process at a chosen moment, or holds a wall-clock bound (a takeover within 9 s, a 503 within a
 * second, a 300 ms cache window). A second file on the other core would make such a test slower
 * or its fault land elsewhere, not the product wrong. Every other file runs two at a time: it
 * counts work, waits with `until()`, and uses its own queue prefix, folders and free ports; but
 * unconfigured-commands holds the content service's default port (4100) and runs commands on the
 * servers' default ports (4100-4104), which no other file listens on.
 */
const ONE_AT_A_TIME = [
  BROWSER, // Chromium
  "tests/integration/topology.test.ts", // OS processes, a worker SIGKILLed mid fan-out
  "tests/integration/paused-worker-takeover.test.ts", // SIGSTOP; taken over within 9 s
  "tests/integration/content-api-wait.test.ts", // SIGTERM timed to the exit; retry time ±2 s
  "tests/integration/worker-killed.test.ts", // SIGKILL at a moment a 5 ms poll catches
  "tests/integration/redis-lost.test.ts", // its redis-server SIGKILLed mid fan-out
  "tests/integration/redis-lost-new-worker.test.ts", // its redis-server killed with everything in it
  "tests/integration/build-process.test.ts", // SIGTERM/SIGKILL; the build ends within 3 s
  "tests/integration/shutdown.test.ts", // processes SIGTERMed, each timed to its exit
  "tests/integration/edge-varnish.test.ts", // varnishd SIGSTOPped; 20 readers coalesced within 2 s
  "tests/integration/webhook.test.ts", // 503 within a second with Redis unreachable
  "tests/integration/contact.test.ts", // 503 within 3 s with the queue unreachable
  "tests/integration/content-client.test.ts", // a 300 ms cache lifetime, 200 ms timeouts
  "tests/integration/publish-lock.test.ts", // lock tries counted in 120-150 ms windows
  "tests/integration/fail-fast-queue-close.test.ts", // closes 0-10 ms after creation (a race)
  "tests/unit/idle-render-pool.test.ts", // 50 ms idle time against 120 ms waits
  "tests/integration/redis-down-logs.test.ts", // its redis-server killed; the lines of a 6 s outage counted
  "tests/integration/site-readiness-redis.test.ts", // its redis-server SIGKILLed and restarted
];

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: "forks",
    // In CI only, a failed test is run once more: these tests drive real processes, Redis, Chromium
    // and SIGKILL on 2 shared cores, and a single slow moment must not throw away a whole run. A test
    // that fails twice still fails CI, and vitest prints every retry, so a flaky test stays visible.
    retry: process.env.CI ? 1 : 0,
    // Projects run at the same time unless their `sequence.groupOrder` differs: the two-at-a-time
    // group runs first, then the one-at-a-time group alone, then the browser tests alone.
    projects: [
      {
        extends: true,
        test: {
          name: "two-at-a-time",
          include: ["tests/**/*.test.ts"],
          exclude: [...EXCLUDE, ...ONE_AT_A_TIME],
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: "one-at-a-time",
          include: ONE_AT_A_TIME,
          exclude: [...EXCLUDE, BROWSER],
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
      {
        // The browser tests, one at a time after the rest, in one process that keeps its modules
        // from file to file (`isolate: false`): each file still starts its own content service,
        // storage folder, site server and queue prefix, and each test takes fresh contexts of one
        // Chromium (tests/e2e/support/browser.ts); the modules every file loads (React, the
        // renderer, the site server, playwright-core) and the browser bundle the build makes once
        // per process (web/src/assets.ts) are loaded and made once, not once per file. No file
        // here changes the environment, globals or a module's state.
        extends: true,
        test: {
          name: "one-at-a-time-browser",
          include: [BROWSER],
          exclude: EXCLUDE,
          maxWorkers: 1,
          isolate: false,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
