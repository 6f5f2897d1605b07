import { describe, expect, it } from "vitest";
import { idleRenderPool } from "#worker/build/idle-render-pool.ts";
import type { BatchResult } from "#worker/build/render-batch.ts";
import type { RenderPool } from "#worker/build/render-pool.ts";

/** A pool that counts its starts and closes, and renders when told to. */
function countingPools() {
  const counts = { started: 0, closed: 0 };
  let release: (() => void) | undefined;
  const create = async (): Promise<RenderPool> => {
    counts.started++;
    return {
      threads: 1,
      render: () =>
        new Promise<BatchResult>((resolve) => {
          release = () => resolve({ rendered: [], failed: [] });
        }),
      renderOwn: async () => ({ rendered: [], failed: [] }),
      close: async () => {
        counts.closed++;
      },
    };
  };
  return { counts, create, finish: () => release?.() };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("a worker's render threads", () => {
  it("start on the first batch, are shared by the next ones, and close once idle", async () => {
    const { counts, create, finish } = countingPools();
    const pool = idleRenderPool(create, 50);
    expect(counts.started).toBe(0); // a worker that never fans out holds no threads
    const first = await pool.get();
    const second = await pool.get();
    expect(counts.started).toBe(1);
    const rendering = first.render([], ["/"]);
    await sleep(120); // longer than idleMs, but a batch is rendering: the threads stay
    expect(counts.closed).toBe(0);
    finish();
    await rendering;
    await second.close(); // a batch's close leaves the shared threads alone
    expect(counts.closed).toBe(0);
    await sleep(120); // longer than idleMs with nothing rendering: the threads close
    expect(counts.closed).toBe(1);
    // A batch that got the threads before they closed renders on new ones.
    const late = first.render([], ["/about"]);
    await sleep(10); // let the late batch start its new threads before its render ends
    finish();
    await late;
    expect(counts.started).toBe(2);
    await pool.get(); // the next batch shares them
    expect(counts.started).toBe(2);
    await pool.close();
    expect(counts.closed).toBe(2);
  });

  it("try again on the next batch when starting failed", async () => {
    let attempts = 0;
    const pool = idleRenderPool(async () => {
      attempts++;
      if (attempts === 1) throw new Error("could not bundle the render thread");
      const nothing = async () => ({ rendered: [], failed: [] });
      return {
        threads: 1,
        render: nothing,
        renderOwn: nothing,
        renderFromStubs: nothing,
        close: async () => {},
      };
    }, 50);
    await expect(pool.get()).rejects.toThrow("could not bundle");
    await expect(pool.get()).resolves.toMatchObject({ threads: 1 });
    expect(attempts).toBe(2);
    await pool.close();
  });
});
