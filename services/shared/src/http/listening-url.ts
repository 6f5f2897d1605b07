import type { Server } from "node:http";

/**
 * The URL a server that listens on `host` can be reached at: its real port (PORT=0 picks one), and
 * a loopback address in place of a wildcard host, since a browser cannot open http://0.0.0.0.
 */
export function listeningUrl(server: Server, host: string, fallbackPort: number): string {
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : fallbackPort;
  const reachable = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
  return `http://${reachable.includes(":") ? `[${reachable}]` : reachable}:${port}`;
}
