// A TCP listener on loopback that counts every connection made to it: a test names its port in a
// hostile input and expects nothing to dial it.
import { createServer } from "node:net";

export interface Canary {
  readonly port: number;
  /** Connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

export async function startCanary(): Promise<Canary> {
  let connections = 0;
  const server = createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return { port, connections: () => connections, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
