import { connect, createServer, type Server, type Socket } from "node:net";

/** What a test can do with the bytes crossing a TCP proxy: see them, hold them, pass them on later. */
export interface ProxyTaps {
  /**
   * Gets what a client sends and writes it to the server itself (`upstream.write`), or holds it, or
   * answers the client itself.
   */
  toServer?: (upstream: Socket, chunk: Buffer, client: Socket) => void;
  /** Gets what the server answers and writes it to the client itself, or holds it. */
  toClient?: (client: Socket, chunk: Buffer) => void;
}

export interface TcpProxy {
  server: Server;
  port: number;
  /** Stops listening and drops every connection it carries. */
  close(): Promise<void>;
}

/**
 * A TCP proxy on loopback to `target` (a port on 127.0.0.1), on `port` (0: any free one). Bytes pass
 * straight through in each direction that has no tap.
 */
export async function tcpProxy(port: number, target: number, taps: ProxyTaps = {}): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(target, "127.0.0.1");
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("error", () => socket.destroy());
      socket.on("close", () => sockets.delete(socket));
    }
    const { toServer, toClient } = taps;
    if (toServer) {
      client.on("data", (chunk: Buffer) => toServer(upstream, chunk, client));
      client.on("end", () => upstream.end());
    } else client.pipe(upstream);
    if (toClient) {
      upstream.on("data", (chunk: Buffer) => toClient(client, chunk));
      upstream.on("end", () => client.end());
    } else upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    server,
    port: (server.address() as { port: number }).port,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
