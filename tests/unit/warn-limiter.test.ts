import { describe, expect, it } from "vitest";
import { WarnLimiter } from "#warn-limiter";

describe("WarnLimiter", () => {
  it("lets the first warning of a kind through, counts the rest of the interval, and reports them with the next", () => {
    let now = 0;
    const limiter = new WarnLimiter(60_000, () => now);
    expect(limiter.take("invalid secret")).toEqual({ suppressed: 0 });
    for (let i = 0; i < 7_000; i++) expect(limiter.take("invalid secret")).toBeUndefined();
    expect(limiter.take("domain mismatch")).toEqual({ suppressed: 0 });
    now = 59_999;
    expect(limiter.take("invalid secret")).toBeUndefined();
    now = 60_000;
    expect(limiter.take("invalid secret")).toEqual({ suppressed: 7_001 });
    now = 200_000;
    expect(limiter.take("invalid secret")).toEqual({ suppressed: 0 });
  });
});
