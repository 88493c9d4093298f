/** A TCP connection to a proxy, recorded in `sockets` so that the check destroys it whatever happens. */
import { connect, isIP, type Socket } from "node:net";
import { socketFailure } from "./failure";
import type { ProxyToCheck } from "./types";

/** Connects to the proxy's address; a failure is a {@link ProbeFailure} named by the socket's error. */
export async function connectTo(proxy: Pick<ProxyToCheck, "ip" | "port">, sockets: Socket[]): Promise<Socket> {
  const socket = connect({ host: proxy.ip, port: proxy.port, family: isIP(proxy.ip) || undefined });
  sockets.push(socket);
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", (error) => reject(socketFailure(error, "connecting")));
  });
  return socket;
}
