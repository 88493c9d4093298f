/**
 * The sockets of one proxy's check, destroyed together whatever happens; one opened after that (a question still
 * under way when the check ended) is destroyed at once.
 */
import { connect, isIP, type Socket } from "node:net";
import { ProbeFailure, socketFailure } from "./failure";
import type { ProxyToCheck } from "./types";

/** The sockets one check opened. */
export class CheckSockets {
  private readonly open = new Set<Socket>();
  private ended = false;

  /** Records a socket, or destroys it when the check has ended. */
  add(socket: Socket): void {
    if (this.ended) socket.destroy();
    else this.open.add(socket);
  }

  /** Ends the check: every socket destroyed, now and from now on. */
  destroyAll(): void {
    this.ended = true;
    for (const socket of this.open) socket.destroy();
    this.open.clear();
  }
}

/** Connects to the proxy's address; a failure is a {@link ProbeFailure} named by the socket's error. */
export async function connectTo(proxy: Pick<ProxyToCheck, "ip" | "port">, sockets: CheckSockets): Promise<Socket> {
  const socket = connect({ host: proxy.ip, port: proxy.port, family: isIP(proxy.ip) || undefined });
  sockets.add(socket);
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", (error) => reject(socketFailure(error, "connecting")));
    // Destroyed before it connected (its check ended): an error may not come.
    socket.once("close", () => reject(new ProbeFailure("closed", "the proxy closed the connection (connecting)")));
  });
  return socket;
}
