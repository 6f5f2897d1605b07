import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["tests/**/*.test.ts"],
    exclude: ["tests/bench/**", "node_modules/**"],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: "forks",
  },
});
