import { availableParallelism } from "node:os";
import { type ResourceLimits, Worker } from "node:worker_threads";
import type { PrismicDocument } from "@prismicio/client";
import type { Logger } from "#logger";
import type { BatchResult, RenderedRoute, SharedContent } from "./render-batch.ts";
import { renderThreadBundle } from "./render-thread-bundle.ts";
import { batchOfAnswers, documentsOfAnswers } from "./search-answers.ts";

/** A render thread's answer to a batch (render-thread.ts). */
interface ThreadAnswer extends Partial<Omit<BatchResult, "rendered">> {
  id: number;
  results?: RenderedRoute[];
  error?: { message: string; stack?: string };
}

export interface RenderPool {
  readonly threads: number;
  /**
   * Renders a batch; a route whose render throws is answered in `failed`, the others in `rendered`.
   * `answers`: content API search answers as unparsed bytes, whose `results` are documents of the
   * batch too. They are moved to the render thread and parsed there, so the main thread never
   * builds those documents.
   */
  render(
    documents: readonly PrismicDocument[],
    routes: readonly string[],
    answers?: readonly ArrayBuffer[],
  ): Promise<BatchResult>;
  /**
   * A build's batch: the documents of `answers` (bytes, parsed on the render thread) rendered at
   * their own routes, and listed (`listed`: stub, hash, refusal of each).
   */
  renderOwn(answers: readonly ArrayBuffer[]): Promise<BatchResult>;
  /**
   * A render thread has died (out of memory, a crash): every later batch fails at once instead of
   * waiting for it. A long-lived owner (a worker's pool) replaces the pool.
   */
  readonly broken?: boolean;
  close(): Promise<void>;
}

/**
 * A small young generation makes a render thread collect each page's short-lived element tree often
 * instead of letting it pile up: lower peak RSS for a little throughput
 * (docs/decisions/002-render-threads.md).
 */
const RENDER_THREAD_HEAP = { maxYoungGenerationSizeMb: 8, maxOldGenerationSizeMb: 256 };

/** One render thread per core but one: the main thread keeps a core for fetching and uploading. */
export function defaultRenderThreads(): number {
  return Math.max(1, availableParallelism() - 1);
}

/**
 * Renders batches on worker threads, so rendering (CPU) runs beside the main thread's fetching and
 * uploading (I/O). `threads: 0` renders on the calling thread (small sites, tests). A route whose
 * render throws is a failed route of the answer; a thread that fails (crash, out of memory) fails
 * its batch. The caller closes the pool in every case.
 */
export async function createRenderPool(
  shared: SharedContent,
  logger: Logger,
  threads = defaultRenderThreads(),
  heap: ResourceLimits = RENDER_THREAD_HEAP,
): Promise<RenderPool> {
  return startRenderPool(logger, threads, heap).begin(shared);
}

/** Render threads started before what they render from is known (startRenderPool). */
export interface StartingRenderPool {
  /** Hands the threads what every batch shares and answers the pool, once they are ready. */
  begin(shared: SharedContent): Promise<RenderPool>;
  /** Stops the threads when the caller fails before `begin` (after it, `close` the pool). */
  abandon(): Promise<void>;
}

/**
 * `createRenderPool` in two steps: the threads start loading their code now (a render thread takes
 * 200-250 ms to be ready: React, Prismic's helpers, the site's components), and get the shared
 * content with `begin`. A build starts them first, so that they load while it reads the manifest,
 * the shared documents (the frame's, `website.shared`), instead of after.
 */
export function startRenderPool(
  logger: Logger,
  threads = defaultRenderThreads(),
  heap: ResourceLimits = RENDER_THREAD_HEAP,
  /** The threads' code: this checkout's render thread (`bench:render-ab` hands others). */
  bundle: () => Promise<URL> = renderThreadBundle,
): StartingRenderPool {
  if (threads === 0)
    return { begin: async (shared) => inThreadPool(shared, logger), abandon: async () => {} };
  // A thread that exits is never given another batch: its `exit` event fires once and for all, so
  // it is listened to from the start (a thread may die before `begin`).
  const dead = new Map<Worker, string>();
  const started = bundle().then((entry) =>
    Array.from({ length: threads }, () => {
      const worker = new Worker(entry, { workerData: { logLevel: logger.level }, resourceLimits: heap });
      let failure = "";
      // What made it fail (its code did not load, it ran out of memory), said when it exits.
      worker.on("error", (error) => {
        failure ||= `: ${error.message}`;
      });
      worker.once("exit", (code) => dead.set(worker, `render thread exited with code ${code}${failure}`));
      return worker;
    }),
  );
  // Its failure (esbuild could not bundle the render code) is `begin`'s to throw, not an unhandled
  // rejection while the caller is still reading what the threads will render.
  started.catch(() => {});
  return {
    begin: async (shared) => {
      const workers = await started;
      // Before any batch: messages reach a thread in the order they were posted.
      for (const worker of workers) worker.postMessage({ shared });
      return threadPool(workers, dead);
    },
    abandon: async () => {
      const workers = await started.catch(() => []);
      await Promise.all(workers.map((worker) => worker.terminate()));
    },
  };
}

/** `threads: 0`: batches rendered on the calling thread (a build's few, with no thread to start). */
export function inThreadPool(shared: SharedContent, logger: Logger): RenderPool {
  // Loaded when a pool renders on its own thread (a build renders its listings there too).
  const rendering = import("./render-batch.ts");
  return {
    threads: 0,
    render: async (documents, routes, answers = []) =>
      (await rendering).renderBatch(shared, [...documents, ...documentsOfAnswers(answers)], routes, logger),
    renderOwn: async (answers) => (await rendering).renderOwnRoutes(shared, batchOfAnswers(answers), logger),
    close: async () => {},
  };
}

function threadPool(workers: Worker[], dead: ReadonlyMap<Worker, string>): RenderPool {
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
    threads: workers.length,
    get broken() {
      return dead.size > 0;
    },
    render: (documents, routes, answers = []) => send({ documents, routes }, answers),
    renderOwn: (answers) => send({ documents: [], routes: [], own: true }, answers),
    async close() {
      await Promise.all(workers.map((worker) => worker.terminate()));
    },
  };

  async function send(
    request: {
      documents: readonly PrismicDocument[];
      routes: readonly string[];
      own?: boolean;
    },
    answers: readonly ArrayBuffer[],
  ): Promise<BatchResult> {
    const worker = await acquire();
    if (dead.has(worker)) {
      release(worker);
      throw new Error(dead.get(worker));
    }
    const id = nextId++;
    try {
      return await new Promise<BatchResult>((resolve, reject) => {
        const onMessage = (message: ThreadAnswer) => {
          if (message.id !== id) return;
          cleanup();
          const { id: _id, error, results, ...answer } = message;
          if (error) reject(Object.assign(new Error(error.message), { stack: error.stack }));
          // Whatever else the thread answers (listed, reused) passes through as it is.
          else resolve({ ...answer, rendered: results ?? [], failed: answer.failed ?? [] });
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
        worker.postMessage({ id, ...request, answers }, [...answers]);
      });
    } finally {
      release(worker);
    }
  }
}
