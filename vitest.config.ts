import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["tests/**/*.test.ts"],
    // tests/faults: `npm run test:faults` (vitest.faults.config.ts), too long for every run.
    exclude: ["tests/bench/**", "tests/faults/**", "node_modules/**"],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: "forks",
  },
});
