import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import type { PrismicDocument } from "@prismicio/client";
import type { Logger } from "../../../services/shared/src/logger.ts";
import { type RenderedRoute, renderBatch, type SharedContent } from "./render-batch.ts";

export interface RenderPool {
  readonly threads: number;
  render(documents: readonly PrismicDocument[], routes: readonly string[]): Promise<RenderedRoute[]>;
  close(): Promise<void>;
}

/** One render thread per core but one: the main thread fetches, uploads and hashes nothing. */
export function defaultRenderThreads(): number {
  return Math.max(1, availableParallelism() - 1);
}

/**
 * Renders batches on worker threads, so that rendering (CPU) runs beside the
 * fetching and uploading (I/O) of the main thread. `threads: 0` renders on the
 * calling thread (small sites, tests). A thread that fails fails its batch;
 * the pool is closed by the caller in every case.
 */
export function createRenderPool(
  shared: SharedContent,
  logger: Logger,
  threads = defaultRenderThreads(),
): RenderPool {
  if (threads === 0) {
    return {
      threads,
      render: (documents, routes) => renderBatch(shared, documents, routes, logger),
      close: async () => {},
    };
  }
  const workers = Array.from(
    { length: threads },
    () =>
      new Worker(new URL("./render-thread.mjs", import.meta.url), {
        workerData: { shared, logLevel: logger.level },
      }),
  );
  const idle = [...workers];
  const waiting: ((worker: Worker) => void)[] = [];
  let nextId = 0;

  const acquire = () =>
    new Promise<Worker>((resolve) =>
      idle.length > 0 ? resolve(idle.pop() as Worker) : waiting.push(resolve),
    );
  const release = (worker: Worker) => {
    const next = waiting.shift();
    if (next) next(worker);
    else idle.push(worker);
  };

  return {
    threads,
    async render(documents, routes) {
      const worker = await acquire();
      const id = nextId++;
      try {
        return await new Promise<RenderedRoute[]>((resolve, reject) => {
          const onMessage = (message: {
            id: number;
            results?: RenderedRoute[];
            error?: { message: string; stack?: string };
          }) => {
            if (message.id !== id) return;
            cleanup();
            if (message.error)
              reject(Object.assign(new Error(message.error.message), { stack: message.error.stack }));
            else resolve(message.results ?? []);
          };
          const onError = (error: Error) => {
            cleanup();
            reject(error);
          };
          const onExit = (code: number) => {
            cleanup();
            reject(new Error(`render thread exited with code ${code}`));
          };
          const cleanup = () => {
            worker.off("message", onMessage);
            worker.off("error", onError);
            worker.off("exit", onExit);
          };
          worker.on("message", onMessage);
          worker.on("error", onError);
          worker.on("exit", onExit);
          worker.postMessage({ id, documents, routes });
        });
      } finally {
        release(worker);
      }
    },
    async close() {
      await Promise.all(workers.map((worker) => worker.terminate()));
    },
  };
}
