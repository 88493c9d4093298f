// HAProxy's rate limiting in front of an API, as its documentation configures it: a stick table counts each key's
// requests (tracked on the `Authorization` header) over a sliding second (`http_req_rate(1s)`, the last second's count
// interpolated from the current and the previous period's), and a request that finds more than `rate` in it is denied
// with `status`. A refused request counts too: a client that keeps asking stays refused. It sends no rate-limit hints
// and no `Retry-After`: the sliding-window counter of many gateways, and a limiter other than nginx's leaky bucket and
// express-rate-limit's fixed window. The tests and `npm run bench` put it in front of a sandbox with no limit of its
// own. HAProxy comes from Debian's packages (scripts/ensure-proxies installs it).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, startStatusFront } from "./loopback.mjs";

/**
 * Starts HAProxy on loopback in front of `upstream` (a base URL): at most `rate` requests per key in any second, the
 * rest answered `status`. `refused()` and `passed()` count its answers from its log (one status a line, on stdout).
 */
export async function startHaproxyFront(upstream, { rate, status = 429, haproxy = "haproxy" }) {
  const dir = mkdtempSync(join(tmpdir(), "haproxy-front-"));
  const port = await freePort();
  const target = new URL(upstream);
  // The backend speaks plain HTTP: an upstream without a port is on HTTP's.
  if (target.protocol !== "http:") throw new Error(`haproxy-front: the upstream must be an http:// URL, not ${upstream}`);
  const upstreamPort = target.port || "80";
  writeFileSync(
    join(dir, "haproxy.cfg"),
    `global
    log stdout format raw local0
defaults
    mode http
    log global
    log-format "%ST"
    timeout connect 5s
    timeout client 60s
    timeout server 60s
frontend api
    bind 127.0.0.1:${port}
    stick-table type string len 256 size 1k expire 60s store http_req_rate(1s)
    http-request track-sc0 req.hdr(Authorization)
    http-request deny deny_status ${status} if { sc_http_req_rate(0) gt ${rate} }
    default_backend upstream
backend upstream
    server upstream ${target.hostname}:${upstreamPort}
`,
  );
  return startStatusFront("HAProxy", port, haproxy, ["-db", "-f", join(dir, "haproxy.cfg")], {
    refusal: status,
    stderr: "ignore",
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  });
}
