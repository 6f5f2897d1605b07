import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["tests/**/*.test.ts"],
    // tests/faults: `npm run test:faults` (vitest.faults.config.ts), too long for every run.
    exclude: ["tests/bench/**", "tests/faults/**", "node_modules/**"],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: "forks",
    // In CI only, a failed test is run once more: these tests drive real processes, Redis, Chromium
    // and SIGKILL on 2 shared cores, and a single slow moment must not throw away a whole run. A test
    // that fails twice still fails CI, and vitest prints every retry, so a flaky test stays visible.
    retry: process.env.CI ? 1 : 0,
  },
});
