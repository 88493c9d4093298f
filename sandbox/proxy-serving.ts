/**
 * Proxies that answer (the option `serveProxies`): every proxy the sandbox provisions gets a real listener on loopback
 * that speaks its protocol, HTTP `CONNECT` or SOCKS5, and requires its username and password; and an echo target
 * answers each request with the address it came from and the country of the proxy it came through. Switches make a
 * proxy dead (its port refuses connections), slow (it answers `slowMs` late), refuse its own credentials, or exit in
 * another country than its record's; a share of the proxies can be made so from the start,
 * chosen by their ids, so the same ids always get the same condition.
 *
 * The proxies forward only to loopback: a sandbox never carries traffic off the machine.
 */
import { createHash } from "node:crypto";
import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
import { createServer, type AddressInfo, type Server, type Socket } from "node:net";
import { answerHandshake } from "./proxy-handshake";
import type { StoredProxy } from "./state";

/** What a served proxy can be made to do. */
export const PROXY_CONDITIONS = ["ok", "dead", "slow", "bad-credentials", "wrong-country"] as const;

/** What a served proxy does. */
export type ProxyCondition = (typeof PROXY_CONDITIONS)[number];

/** Options of the served proxies ({@link SandboxOptions.serveProxies}). */
export interface ServeProxiesOptions {
  /** Milliseconds every proxy takes to answer its handshake: a proxy that is not on loopback. @default 0 */
  latencyMs?: number;
  /** Milliseconds more a slow proxy takes. @default 3000 */
  slowMs?: number;
  /** Share of the proxies, 0 to 1, that are dead from the start. @default 0 */
  dead?: number;
  /** Share of the proxies that are slow from the start. @default 0 */
  slow?: number;
  /** Share of the proxies that refuse their own credentials from the start. @default 0 */
  badCredentials?: number;
  /** Share of the proxies that exit in another country than their record's from the start. @default 0 */
  wrongCountry?: number;
}

/** The served proxies of a running sandbox. */
export interface ProxyServing {
  /**
   * A URL that answers `{"ip": "<the caller's address>", "country": "<the proxy's>"}` (the country of the proxy a
   * request came through; none for a request that came through none): the target to check the proxies against.
   */
  readonly echoUrl: string;
  /** Makes a proxy (by id) dead, slow, refuse its credentials, exit elsewhere, or answer again. */
  setCondition(proxyId: string, condition: ProxyCondition): Promise<void>;
  /** What a proxy does now. */
  conditionOf(proxyId: string): ProxyCondition;
  /** The connections open to the served proxies now: a test's sign that a check is under way. */
  connections(): number;
}

interface Served {
  proxy: StoredProxy;
  condition: ProxyCondition;
  server?: Server;
  /** The connections of its listener, closed with it. */
  sockets: Set<Socket>;
}

/** The listeners of the served proxies, and the echo target. */
export class ProxyListeners implements ProxyServing {
  private readonly served = new Map<string, Served>();
  private echo: HttpServer | undefined;
  private echoPort = 0;
  /** The proxy each open connection to a target came through, by the connection's local port. */
  private readonly exits = new Map<number, Served>();

  constructor(private readonly options: ServeProxiesOptions) {}

  connections(): number {
    let open = 0;
    for (const entry of this.served.values()) open += entry.sockets.size;
    return open;
  }

  get echoUrl(): string {
    return `http://127.0.0.1:${this.echoPort}/ip`;
  }

  /** Starts the echo target. */
  async start(): Promise<void> {
    this.echo = createHttpServer((req, res) => {
      const through = this.exits.get(req.socket.remotePort ?? 0);
      const country = through && (through.condition === "wrong-country" ? elsewhere(through.proxy.country) : through.proxy.country);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ ip: req.socket.remoteAddress, ...(country ? { country } : {}) }));
    });
    this.echoPort = await listen(this.echo, 0);
  }

  /** Gives each proxy a listener on loopback (its stored port when it is free, as after a restart) and its address. */
  async serve(proxies: readonly StoredProxy[]): Promise<void> {
    await Promise.all(
      proxies.map(async (proxy) => {
        const entry: Served = { proxy, condition: this.initialCondition(proxy.id), sockets: new Set() };
        this.served.set(proxy.id, entry);
        const wanted = proxy.ip === "127.0.0.1" ? proxy.port : 0;
        proxy.ip = "127.0.0.1";
        proxy.port = await this.open(entry, wanted).catch(() => this.open(entry, 0));
        if (entry.condition === "dead") await this.close(entry);
      }),
    );
  }

  async setCondition(proxyId: string, condition: ProxyCondition): Promise<void> {
    const entry = this.served.get(proxyId);
    if (!entry) throw new Error(`The sandbox serves no proxy with the id "${proxyId}".`);
    const was = entry.condition;
    entry.condition = condition;
    if (condition === "dead" && was !== "dead") await this.close(entry);
    if (condition !== "dead" && was === "dead") entry.proxy.port = await this.open(entry, entry.proxy.port);
  }

  conditionOf(proxyId: string): ProxyCondition {
    return this.served.get(proxyId)?.condition ?? "ok";
  }

  /** Closes every proxy's listener (the orders were forgotten). */
  async clear(): Promise<void> {
    const all = [...this.served.values()];
    this.served.clear();
    await Promise.all(all.map((entry) => this.close(entry)));
  }

  /** Closes every listener and the echo target. */
  async stop(): Promise<void> {
    await this.clear();
    const echo = this.echo;
    if (!echo) return;
    echo.closeAllConnections();
    await new Promise<void>((resolve) => echo.close(() => resolve()));
  }

  private async open(entry: Served, port: number): Promise<number> {
    const server = createServer((socket) => {
      entry.sockets.add(socket);
      socket.once("close", () => entry.sockets.delete(socket));
      const onUpstream = (upstream: Socket) => {
        const port = upstream.localPort ?? 0;
        this.exits.set(port, entry);
        upstream.once("close", () => this.exits.delete(port));
      };
      void answerHandshake(socket, entry.proxy, { delayMs: this.delayOf(entry), refuseCredentials: entry.condition === "bad-credentials", onUpstream });
    });
    const bound = await listen(server, port);
    entry.server = server;
    return bound;
  }

  private async close(entry: Served): Promise<void> {
    const server = entry.server;
    entry.server = undefined;
    for (const socket of entry.sockets) socket.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private delayOf(entry: Served): number {
    return (this.options.latencyMs ?? 0) + (entry.condition === "slow" ? (this.options.slowMs ?? 3000) : 0);
  }

  /** The condition the shares give a proxy: a point in [0, 1) from its id, the same on every run. */
  private initialCondition(id: string): ProxyCondition {
    const point = createHash("sha256").update(id).digest().readUInt32BE(0) / 2 ** 32;
    const { dead = 0, slow = 0, badCredentials = 0, wrongCountry = 0 } = this.options;
    if (point < dead) return "dead";
    if (point < dead + slow) return "slow";
    if (point < dead + slow + badCredentials) return "bad-credentials";
    if (point < dead + slow + badCredentials + wrongCountry) return "wrong-country";
    return "ok";
  }
}

/** A country other than `country`: where a proxy made to exit elsewhere says it is. */
function elsewhere(country: string): string {
  return country.toUpperCase() === "DE" ? "NL" : "DE";
}

function listen(server: Server | HttpServer, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}
