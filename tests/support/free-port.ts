import { createServer } from "node:net";

/**
 * A free TCP port on 127.0.0.1: bound, then released for a process or server to take (a child's
 * `PORT`, varnishd, a private redis-server), or to stand for an address where nothing listens.
 */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (typeof address !== "object" || !address) throw new Error("no port from a listening socket");
  return address.port;
}
