/**
 * The worker's sweep for temp files killed writers left (temp-sweep.ts): a walk of folder storage
 * reads every folder of the site, so a process runs one at a time, at most once per interval, and
 * stops it at shutdown. The walk itself runs on a real folder; the store's calls are counted.
 */
import { existsSync } from "node:fs";
import { mkdir, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { removeStaleTempFiles } from "#storage/fs-temp-cleanup.ts";
import { STALE_TEMP_MS, tempSweeper } from "#worker/temp-sweep.ts";
import { tempDir } from "../support/temp-dir.ts";

const logger = pino({ level: "silent" });
let folder: { path: string; remove: () => Promise<void> } | undefined;
afterEach(async () => {
  await folder?.remove();
  folder = undefined;
});

/** A store whose walks are counted and end when the test says. */
function countedStore() {
  const walks: { olderThanMs: number; signal: AbortSignal | undefined; end: (n: number | Error) => void }[] =
    [];
  return {
    walks,
    store: {
      removeStaleTemp: (olderThanMs: number, signal?: AbortSignal) =>
        new Promise<number>((resolve, reject) =>
          walks.push({
            olderThanMs,
            signal,
            end: (n) => (n instanceof Error ? reject(n) : resolve(n)),
          }),
        ),
    },
  };
}

describe("the worker's temp sweep", () => {
  it("walks once at a time, then not again within its interval", async () => {
    let now = 1_000_000;
    const { walks, store } = countedStore();
    const sweeper = tempSweeper({ store, logger }, { everyMs: 60_000, now: () => now });
    const first = sweeper.due();
    expect(first).toBeInstanceOf(Promise);
    expect(sweeper.due()).toBe(undefined); // one is running
    expect(walks).toHaveLength(1);
    expect(walks[0]?.olderThanMs).toBe(STALE_TEMP_MS);
    walks[0]?.end(2);
    expect(await first).toBe(2);
    now += 59_999;
    expect(sweeper.due()).toBe(undefined); // within the interval
    now += 1;
    const second = sweeper.due();
    expect(walks).toHaveLength(2);
    walks[1]?.end(0);
    expect(await second).toBe(0);
  });

  it("logs a failed walk and answers 0; the next interval walks again", async () => {
    let now = 0;
    const warnings: unknown[] = [];
    const { walks, store } = countedStore();
    const sweeper = tempSweeper(
      { store, logger: { ...logger, warn: (...args: unknown[]) => warnings.push(args) } as never },
      { everyMs: 10, now: () => now },
    );
    const failed = sweeper.due();
    walks[0]?.end(new Error("EACCES: permission denied, scandir '/site/about'"));
    expect(await failed).toBe(0);
    expect(warnings).toHaveLength(1);
    now = 10;
    expect(sweeper.due()).toBeInstanceOf(Promise);
    expect(walks).toHaveLength(2);
  });

  it("starts no walk after shutdown, and hands the walk the shutdown's signal", async () => {
    const { walks, store } = countedStore();
    const shutdown = new AbortController();
    const sweeper = tempSweeper({ store, logger }, { everyMs: 0, signal: shutdown.signal });
    const first = sweeper.due();
    expect(walks[0]?.signal).toBe(shutdown.signal);
    walks[0]?.end(0);
    await first;
    shutdown.abort();
    expect(sweeper.due()).toBe(undefined);
    expect(walks).toHaveLength(1);
  });

  it("the folder walk removes old temp files, keeps young ones, and stops once aborted", async () => {
    folder = await tempDir("temp-sweep");
    const hourAgo = new Date(Date.now() - 3_600_000);
    const old = join(folder.path, "about", ".pressroom-tmp-old");
    const young = join(folder.path, "pricing", ".pressroom-tmp-young");
    for (const path of [old, young]) {
      await mkdir(join(path, ".."), { recursive: true });
      await writeFile(path, "<!doctype html><p>half");
    }
    await utimes(old, hourAgo, hourAgo);
    const aborted = new AbortController();
    aborted.abort();
    expect(await removeStaleTempFiles(folder.path, STALE_TEMP_MS, Date.now(), aborted.signal)).toBe(0);
    expect(existsSync(old)).toBe(true);
    expect(
      await removeStaleTempFiles(folder.path, STALE_TEMP_MS, Date.now(), new AbortController().signal),
    ).toBe(1);
    expect(existsSync(old)).toBe(false);
    expect(existsSync(young)).toBe(true);
  });
});
