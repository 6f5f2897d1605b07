/**
 * A render thread of the build's pool: receives the shared content once, then
 * batches of documents and routes, and answers with rendered, hashed routes.
 */
import { parentPort, workerData } from "node:worker_threads";
import { pino } from "pino";
import { routeStrayOutput } from "#ops/stray-output.ts";
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

const { logLevel } = workerData as { logLevel: string };
const logger = pino({ name: "render", level: logLevel });
// What a library prints here (React's warnings) reaches the process's stderr raw: a log line instead.
routeStrayOutput(logger);
/** What every batch shares: the pool's first message (render-pool.ts `begin`), before any batch. */
let shared: SharedContent | undefined;

parentPort?.on("message", async (message: BatchRequest | { shared: SharedContent }) => {
  if ("shared" in message) {
    shared = message.shared;
    return;
  }
  const request = message;
  try {
    if (!shared) throw new Error("a batch came before the content every batch shares");
    const { rendered, failed, listed, reused, renewed } = request.own
      ? await renderOwnRoutes(shared, batchOfAnswers(request.answers ?? []), logger)
      : await renderBatch(shared, parsed(request), request.routes, logger);
    // The pages' bytes move to the main thread (transferred, not copied).
    parentPort?.postMessage(
      { id: request.id, results: rendered, failed, listed, reused, renewed },
      rendered.map((result) => result.body.buffer as ArrayBuffer),
    );
  } catch (error) {
    const failure = error as Error;
    parentPort?.postMessage({ id: request.id, error: { message: failure.message, stack: failure.stack } });
  }
});

/**
 * The batch's documents, its answers parsed: the answers' bytes are let go before the batch renders
 * (a build's listings get every page's stub, tens of MB at 100,000 pages).
 */
function parsed(request: BatchRequest): SharedContent["documents"] {
  const documents = [
    ...(request.documents as SharedContent["documents"]),
    ...documentsOfAnswers(request.answers ?? []),
  ];
  request.answers = undefined;
  return documents;
}
