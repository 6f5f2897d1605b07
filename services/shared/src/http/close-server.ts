import type { Server } from "node:http";

/**
 * How long requests in flight may take to finish once a server is closing. Every answer here takes
 * far less (a page read from storage, a job queued, a preview render whose content requests the
 * shutdown aborts); what is still open after it is a client that never finishes its request.
 */
export const CLOSE_GRACE_MS = 2_000;

/**
 * Closes a Fastify server within a bound: new connections are refused at once, idle keep-alive ones
 * closed (Fastify's default), requests in flight get `graceMs` to be answered, and then every
 * connection still open is cut. Without the cut, a client whose request never ends (a stalled or
 * deliberately slow one: one open socket suffices) holds the close until the process's shutdown
 * deadline (bin/cli.ts, 8 s) forces an exit with code 1, skipping every close after it (issue 20 §3:
 * measured 8.1 s for the site server, the webhook receiver and `pressroom start`;
 * tests/integration/shutdown.test.ts).
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
