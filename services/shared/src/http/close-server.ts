import type { Server } from "node:http";

/**
 * How long requests in flight may take to finish once a server is closing. Every answer here takes
 * far less (a page read from storage, a job queued, a preview render whose content requests the
 * shutdown aborts); what is still open after it is a client that never finishes its request.
 */
export const CLOSE_GRACE_MS = 2_000;

/**
 * Closes a Fastify server within a bound: new connections are refused at once, idle keep-alive ones
 * closed, requests in flight get `graceMs` to be answered, then every connection still open is cut.
 * Without the cut, one client whose request never ends holds the close until the shutdown deadline
 * (bin/cli.ts) forces an exit with code 1, skipping every close after it.
 */
export async function closeServer(
  app: { server: Server; close(): PromiseLike<unknown> },
  graceMs = CLOSE_GRACE_MS,
): Promise<void> {
  const cut = setTimeout(() => app.server.closeAllConnections(), graceMs);
  cut.unref();
  try {
    await app.close();
  } finally {
    clearTimeout(cut);
  }
}
