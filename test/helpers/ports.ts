/** Loopback ports for tests: one nothing listens on a moment after it was free, and the wait for a server to listen. */
import { createConnection, createServer, type AddressInfo } from "node:net";

/** A loopback port free a moment ago: for a server to listen on, or a target nothing answers at. */
export async function freePort(): Promise<number> {
  const server = createServer().listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Resolves once something accepts connections on the port, or rejects after `ms`. */
export async function listening(port: number, name: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ host: "127.0.0.1", port }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${name} did not listen on 127.0.0.1:${port} within ${ms} ms`);
}
