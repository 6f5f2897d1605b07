import { defineConfig } from "vitest/config";

/** Fault tests too long for `npm test` (real processes killed, stalled-job timeouts): `npm run test:faults`. */
export default defineConfig({
  test: {
    include: ["tests/faults/**/*.test.ts"],
    testTimeout: 900_000,
    hookTimeout: 600_000,
    pool: "forks",
    fileParallelism: false,
  },
});
