/** Loopback ports for tests: one nothing listens on a moment after it was free. */
import { createServer, type AddressInfo } from "node:net";

/** A loopback port free a moment ago: for a server to listen on, or a target nothing answers at. */
export async function freePort(): Promise<number> {
  const server = createServer().listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
