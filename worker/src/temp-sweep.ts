import type { Logger } from "#logger";
import type { SiteStore } from "#storage";

/** A temp file older than this is no write in flight: its writer was killed (folder storage). */
export const STALE_TEMP_MS = 10 * 60_000;

/**
 * How often a worker walks its folder for stale temp files after the walk at its start. A walk reads
 * every folder of the site (100,000 pages: 14–18 s, 12 s of CPU), so it runs beside publishing, never
 * under the publish lock, and once an hour rather than every reconcile round.
 */
export const TEMP_SWEEP_EVERY_MS = 60 * 60_000;

/** Sweeps for the `.pressroom-tmp-*` files killed writers left (folder storage; other stores have none). */
export interface TempSweeper {
  /**
   * Starts a sweep unless one is running or the last one started less than `everyMs` ago, and
   * answers it (it never rejects: a failure is logged), or undefined when none was started.
   * Nobody needs to wait for it: what it removes, no reader and no writer uses.
   */
  due(): Promise<number> | undefined;
}

export function tempSweeper(
  ctx: { store: Pick<SiteStore, "removeStaleTemp">; logger: Logger },
  options: {
    everyMs?: number | undefined;
    /** The process's shutdown: a walk stops between two folders (a close must not wait for it). */
    signal?: AbortSignal | undefined;
    now?: () => number;
  } = {},
): TempSweeper {
  const { everyMs = TEMP_SWEEP_EVERY_MS, signal, now = Date.now } = options;
  let running: Promise<number> | undefined;
  let startedAt = Number.NEGATIVE_INFINITY;
  return {
    due() {
      if (running || signal?.aborted || now() - startedAt < everyMs) return undefined;
      startedAt = now();
      running = removeStaleTemp(ctx, signal)
        .catch((error: unknown) => {
          ctx.logger.warn({ err: error }, "could not remove stale temp files");
          return 0;
        })
        .finally(() => {
          running = undefined;
        });
      return running;
    },
  };
}

/** Removes the `.pressroom-tmp-*` files killed writers left, once STALE_TEMP_MS old; answers how many. */
export async function removeStaleTemp(
  ctx: { store: Pick<SiteStore, "removeStaleTemp">; logger: Logger },
  signal?: AbortSignal,
): Promise<number> {
  const removed = (await ctx.store.removeStaleTemp?.(STALE_TEMP_MS, signal)) ?? 0;
  if (removed > 0) ctx.logger.info({ removed }, "removed temp files left by a killed writer");
  return removed;
}
