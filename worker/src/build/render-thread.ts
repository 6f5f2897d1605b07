/**
 * A render thread of the build's pool: receives the shared content once, then
 * batches of documents and routes, and answers with rendered, hashed routes.
 */
import { parentPort, workerData } from "node:worker_threads";
import { pino } from "pino";
import { renderBatch, renderOwnRoutes, type SharedContent } from "./render-batch.ts";
import { batchOfAnswers, documentsOfAnswers } from "./search-answers.ts";

export interface BatchRequest {
  id: number;
  documents: unknown[];
  routes: string[];
  /** Search answers as bytes, parsed here (render-pool.ts). */
  answers?: ArrayBuffer[];
  /** Render the documents' own routes (`routes` is empty) and list the documents (renderOwnRoutes). */
  own?: boolean;
}

const { shared, logLevel } = workerData as { shared: SharedContent; logLevel: string };
const logger = pino({ name: "render", level: logLevel });

parentPort?.on("message", async (request: BatchRequest) => {
  try {
    const { rendered, failed, listed, reused } = request.own
      ? await renderOwnRoutes(shared, batchOfAnswers(request.answers ?? []), logger)
      : await renderBatch(
          shared,
          [
            ...(request.documents as SharedContent["documents"]),
            ...documentsOfAnswers(request.answers ?? []),
          ],
          request.routes,
          logger,
        );
    // The pages' bytes move to the main thread (transferred, not copied).
    parentPort?.postMessage(
      { id: request.id, results: rendered, failed, listed, reused },
      rendered.map((result) => result.body.buffer as ArrayBuffer),
    );
  } catch (error) {
    const failure = error as Error;
    parentPort?.postMessage({ id: request.id, error: { message: failure.message, stack: failure.stack } });
  }
});
