/**
 * The backoff of jobs that read the content API: exponential as BullMQ's own, but a
 * job failing because the content API asked for a long wait is retried when it said, not before.
 */
import type { MinimalJob } from "bullmq";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { RateLimitedError } from "#errors";
import { jobCatalog, RETRY_AFTER_BACKOFF, retryAfterBackoff } from "#jobs/catalog.ts";

const NOW = Date.parse("2026-11-25T10:00:00Z");
const job = (delay: number) =>
  ({ opts: { backoff: { type: RETRY_AFTER_BACKOFF, delay } } }) as unknown as MinimalJob;
const limited = (inMs: number) => new RateLimitedError("http://api/x", undefined, NOW + inMs, "a test");

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(NOW);
});
afterEach(() => vi.useRealTimers());

describe("retryAfterBackoff", () => {
  it.each([
    ["first retry, any other error", 1, new Error("boom"), 1_000],
    ["third retry, any other error", 3, new Error("boom"), 4_000],
    ["a 429 asking for an hour", 1, limited(3_600_000), 3_600_000],
    ["a 429 asking for less than the exponential delay", 4, limited(2_000), 8_000],
    ["a 429 whose time has passed", 2, limited(-5_000), 2_000],
  ])("%s", (_name, attemptsMade, error, expected) => {
    expect(retryAfterBackoff(attemptsMade, RETRY_AFTER_BACKOFF, error, job(1_000))).toBe(expected);
  });

  it("is the backoff of every job that reads the content API", () => {
    for (const name of ["publish", "build", "render-batch"] as const)
      expect(jobCatalog[name].backoff.type).toBe(RETRY_AFTER_BACKOFF);
  });
});
