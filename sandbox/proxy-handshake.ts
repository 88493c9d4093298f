/**
 * One connection to a served proxy (proxy-serving.ts): its handshake, HTTP `CONNECT` or SOCKS5 by the first byte, with
 * the proxy's own username and password required (none for a proxy without credentials, allow-listed by IP), then
 * the bytes carried to the target, which must be on loopback.
 */
import { connect, isIP, type Socket } from "node:net";
import type { StoredProxy } from "./state";

/** How this connection's proxy behaves. */
export interface HandshakeBehaviour {
  /** Milliseconds before the proxy answers. */
  delayMs: number;
  /** Refuse the credentials even when they are right. */
  refuseCredentials: boolean;
  /** Told of each connection to a target, so the echo can tell which proxy a request came through. */
  onUpstream?: (upstream: Socket) => void;
}

/** Answers one connection; every error ends it. */
export async function answerHandshake(socket: Socket, proxy: StoredProxy, behaviour: HandshakeBehaviour): Promise<void> {
  const reader = new Reader(socket);
  try {
    const first = await reader.peek();
    if (behaviour.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, behaviour.delayMs));
    const accepts = (user: string, pass: string) => !behaviour.refuseCredentials && user === proxy.username && pass === proxy.password;
    // A proxy without credentials is allow-listed by IP: every client on loopback is admitted.
    const open = proxy.username === undefined;
    const target = first === 5 ? await socks5(reader, socket, accepts, open) : await httpConnect(reader, socket, accepts, open);
    if (!target) return void socket.end();
    await carry(socket, reader, target, first === 5, behaviour.onUpstream);
  } catch {
    socket.destroy();
  }
}

async function httpConnect(reader: Reader, socket: Socket, accepts: (user: string, pass: string) => boolean, open: boolean): Promise<Target | undefined> {
  const head = (await reader.through("\r\n\r\n")).toString("latin1");
  const [, authority = ""] = /^CONNECT (\S+) HTTP\/1\.[01]\r\n/.exec(head) ?? [];
  const credentials = /\r\nproxy-authorization:\s*basic\s+(\S+)/i.exec(head)?.[1];
  const [user = "", ...pass] = Buffer.from(credentials ?? "", "base64").toString("utf8").split(":");
  if (!authority) {
    socket.write("HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    return undefined;
  }
  // Allow-listed by IP (`open`): no authentication asked for; credentials sent anyway are ignored, as such servers do.
  if (!open && (credentials === undefined || !accepts(user, pass.join(":")))) {
    socket.write('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="sandbox"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
    return undefined;
  }
  const at = authority.lastIndexOf(":");
  return { host: authority.slice(0, at).replace(/^\[(.*)\]$/, "$1"), port: Number(authority.slice(at + 1)) };
}

async function socks5(reader: Reader, socket: Socket, accepts: (user: string, pass: string) => boolean, open: boolean): Promise<Target | undefined> {
  const [, count = 0] = await reader.bytes(2);
  const methods = [...(await reader.bytes(count))];
  // Allow-listed by IP: "no authentication" (0) only; otherwise username and password (2) only.
  const method = open ? 0 : 2;
  if (!methods.includes(method)) {
    socket.write(Buffer.from([5, 0xff]));
    return undefined;
  }
  socket.write(Buffer.from([5, method]));
  if (!open && !(await subNegotiation(reader, socket, accepts))) return undefined;
  const [, command, , type] = await reader.bytes(4);
  const host =
    type === 1
      ? [...(await reader.bytes(4))].join(".")
      : type === 4
        ? ((await reader.bytes(16)).toString("hex").match(/.{4}/g) ?? []).join(":")
        : (await reader.bytes((await reader.bytes(1))[0] ?? 0)).toString("utf8");
  const portBytes = await reader.bytes(2);
  if (command !== 1) {
    socket.write(Buffer.from([5, 7, 0, 1, 0, 0, 0, 0, 0, 0]));
    return undefined;
  }
  return { host, port: portBytes.readUInt16BE(0) };
}

/** The username/password sub-negotiation (RFC 1929): whether the credentials were accepted (the answer says so). */
async function subNegotiation(reader: Reader, socket: Socket, accepts: (user: string, pass: string) => boolean): Promise<boolean> {
  const [, userLength = 0] = await reader.bytes(2);
  const user = (await reader.bytes(userLength)).toString("utf8");
  const [passLength = 0] = await reader.bytes(1);
  const pass = (await reader.bytes(passLength)).toString("utf8");
  const accepted = accepts(user, pass);
  socket.write(Buffer.from([1, accepted ? 0 : 1]));
  return accepted;
}

interface Target {
  host: string;
  port: number;
}

/** Connects to the target (loopback only) and carries the bytes both ways; says so in the protocol's words. */
async function carry(socket: Socket, reader: Reader, target: Target, isSocks: boolean, onUpstream?: (upstream: Socket) => void): Promise<void> {
  const answer = (ok: boolean, socksReply: number) =>
    socket.write(isSocks ? Buffer.from([5, ok ? 0 : socksReply, 0, 1, 127, 0, 0, 1, 0, 0]) : ok ? "HTTP/1.1 200 Connection Established\r\n\r\n" : "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
  if (!isLoopback(target.host)) {
    answer(false, 2);
    return void socket.end();
  }
  const upstream = connect({ host: target.host, port: target.port });
  upstream.once("error", () => {
    answer(false, 5);
    socket.end();
  });
  upstream.once("connect", () => {
    onUpstream?.(upstream);
    answer(true, 0);
    const ahead = reader.release();
    if (ahead.length > 0) upstream.write(ahead);
    socket.pipe(upstream).pipe(socket);
    socket.resume();
  });
  socket.once("close", () => upstream.destroy());
}

function isLoopback(host: string): boolean {
  return host === "localhost" || (isIP(host) === 4 && host.startsWith("127.")) || host === "::1" || /^0{4}(:0{4}){6}:0{3}1$/.test(host);
}

/** Reads a connection's handshake bytes. */
class Reader {
  private buffered = Buffer.alloc(0);
  private wake: (() => void) | undefined;
  private ended = false;
  private readonly onData = (chunk: Buffer) => {
    this.buffered = Buffer.concat([this.buffered, chunk]);
    this.notify();
  };

  constructor(private readonly socket: Socket) {
    socket.on("data", this.onData);
    socket.once("end", () => ((this.ended = true), this.notify()));
    socket.once("error", () => ((this.ended = true), this.notify()));
  }

  async peek(): Promise<number> {
    await this.until(() => this.buffered.length >= 1);
    return this.buffered[0] ?? 0;
  }

  async bytes(n: number): Promise<Buffer> {
    await this.until(() => this.buffered.length >= n);
    return this.take(n);
  }

  async through(delimiter: string): Promise<Buffer> {
    await this.until(() => this.buffered.includes(delimiter) || this.buffered.length > 16_384);
    const at = this.buffered.indexOf(delimiter);
    if (at < 0) throw new Error("handshake too long");
    return this.take(at + delimiter.length);
  }

  /** Stops reading; the bytes read ahead. */
  release(): Buffer {
    this.socket.off("data", this.onData);
    this.socket.pause();
    return this.take(this.buffered.length);
  }

  private take(n: number): Buffer {
    const out = this.buffered.subarray(0, n);
    this.buffered = this.buffered.subarray(n);
    return out;
  }

  private async until(ready: () => boolean): Promise<void> {
    while (!ready()) {
      if (this.ended) throw new Error("connection ended");
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
