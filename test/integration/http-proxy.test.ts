/**
 * A corporate network: `HTTP_PROXY`/`HTTPS_PROXY` route the client through the proxy, `NO_PROXY` exempts hosts.
 * (Kept apart from nock, which patches the HTTP stack of the process it is loaded in.)
 */
import { createServer, request as httpRequest, type Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { useSandbox } from "../helpers/sandbox";

const sandbox = useSandbox();
const client = () => sandbox.client({ maxAttempts: 1 });

describe("proxy environment variables", () => {
  let proxy: Server;
  let proxyUrl: string;
  const seen: string[] = [];
  const saved = { ...process.env };

  beforeAll(async () => {
    // A minimal forward proxy: CONNECT tunnels, and absolute-form requests, each recorded.
    proxy = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      const target = new URL(req.url ?? "");
      const upstream = httpRequest(target, { method: req.method, headers: req.headers }, (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      });
      req.pipe(upstream);
    });
    proxy.on("connect", (req, socket, head) => {
      seen.push(`CONNECT ${req.url}`);
      const [host, port] = (req.url ?? "").split(":");
      const upstream = connect(Number(port), host, () => {
        socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        upstream.write(head);
        upstream.pipe(socket);
        socket.pipe(upstream);
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  });
  afterEach(() => {
    process.env = { ...saved };
    seen.length = 0;
  });
  afterAll(() => {
    proxy.closeAllConnections();
    proxy.close();
  });

  it("sends through HTTP_PROXY when it is set", async () => {
    process.env.HTTP_PROXY = proxyUrl;
    await client().getUsage();
    expect(seen.join("\n")).toContain(`127.0.0.1:${sandbox.current.port}`);
    expect(sandbox.current.requests).toHaveLength(1);
  });

  it("goes direct for hosts in NO_PROXY", async () => {
    process.env.HTTP_PROXY = proxyUrl;
    process.env.NO_PROXY = "127.0.0.1";
    await client().getUsage();
    expect(seen).toEqual([]);
  });
});
