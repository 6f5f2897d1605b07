import type { PrismicDocument } from "@prismicio/client";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { buildSiteAssets } from "#web/assets.ts";
import { idleRenderPool } from "#worker/build/idle-render-pool.ts";
import { createRenderPool } from "#worker/build/render-pool.ts";

const logger = pino({ level: "silent" });
/** A batch no render thread with a 32 MB heap can take in: the thread runs out of memory and dies. */
const tooBig = [
  { id: "huge", type: "page", data: { rows: Array.from({ length: 2_000_000 }, (_, i) => ({ i })) } },
] as unknown as PrismicDocument[];

describe("a worker's render threads after one dies", () => {
  it("fail the batch that killed it at once, and give the next batch new threads", async () => {
    const { assets } = await buildSiteAssets();
    const starts: number[] = [];
    const pool = idleRenderPool(async () => {
      starts.push(Date.now());
      return createRenderPool({ siteUrl: "https://www.example.com", assets, documents: [] }, logger, 1, {
        maxOldGenerationSizeMb: 32,
        maxYoungGenerationSizeMb: 4,
      });
    }, 60_000);
    try {
      const threads = await pool.get();
      await expect(threads.render(tooBig, ["/huge"])).rejects.toThrow(/render thread|out of memory/i);
      // Before: the dead thread was handed the next batch, which waited for an answer forever.
      const next = await (await pool.get()).render([], ["/robots.txt"]);
      expect(next.rendered.map((r) => r.route)).toEqual(["/robots.txt"]);
      expect(new TextDecoder().decode(next.rendered[0]?.body)).toContain("Sitemap:");
      expect(starts).toHaveLength(2);
    } finally {
      await pool.close();
    }
  }, 60_000);
});
