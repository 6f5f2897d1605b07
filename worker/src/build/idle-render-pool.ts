import type { RenderPool } from "./render-pool.ts";

export interface IdleRenderPool {
  /** The pool, started on first use (and again after it was closed for being idle). */
  get(): Promise<RenderPool>;
  /** Closes the pool now (the process is stopping); a later `get` starts a new one. */
  close(): Promise<void>;
}

/**
 * A long-running worker's render threads: started when a fan-out first needs them, closed when no
 * batch has used them for `idleMs` (a render thread holds tens of megabytes that a worker waiting
 * for single-page edits has no use for), started again by the next fan-out (about 100 ms).
 */
export function idleRenderPool(create: () => Promise<RenderPool>, idleMs = 30_000): IdleRenderPool {
  let pool: Promise<RenderPool> | undefined;
  /** The pool once started (to see whether it broke). */
  let current: RenderPool | undefined;
  let busy = 0;
  let timer: NodeJS.Timeout | undefined;
  const closeNow = async () => {
    const closing = pool;
    pool = undefined;
    current = undefined;
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (closing) await (await closing.catch(() => undefined))?.close();
  };
  const idleLater = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      if (busy === 0) void closeNow();
    }, idleMs);
    timer.unref();
  };
  const ensure = () => {
    if (current?.broken) {
      // A thread died (out of memory, a crash): the batch that saw it failed and is retried; the
      // next batch gets new threads rather than failing on the dead one forever.
      void current.close();
      pool = undefined;
      current = undefined;
    }
    if (!pool) {
      const starting = create();
      pool = starting;
      starting.then(
        (started) => {
          if (pool === starting) current = started;
        },
        () => {
          if (pool === starting) pool = undefined; // the next batch tries again
        },
      );
    }
    return pool;
  };
  return {
    async get() {
      const { threads } = await ensure();
      // The pool of now: the one `get` saw may have closed for idleness since.
      const busyWhile = async <T>(work: (pool: RenderPool) => Promise<T>): Promise<T> => {
        busy++;
        if (timer) clearTimeout(timer);
        try {
          return await work(await ensure());
        } finally {
          busy--;
          if (busy === 0) idleLater();
        }
      };
      return {
        threads,
        render: (documents, routes, answers) => busyWhile((pool) => pool.render(documents, routes, answers)),
        renderOwn: (answers) => busyWhile((pool) => pool.renderOwn(answers)),
        // The batches share the pool: only idleness or the process's close ends it.
        close: async () => {},
      };
    },
    close: closeNow,
  };
}
