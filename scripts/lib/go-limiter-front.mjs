// Rate limiters of Go services in front of an API (scripts/lib/go-limiter-front/main.go): go-chi/httprate's sliding
// window counter (the limiter of Go services on chi) and ulule/limiter's windows, each with GitHub's hints on every
// answer, their reset the window's end cut down to the second. `npm run bench` puts them in front of a sandbox with no
// limit of its own; the program is built from Go modules into the cache folder on first use (a folder named by its
// sources' hash), as scripts/ensure-proxies builds the Go proxies.
import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { cacheRoot } from "./cache-root.mjs";
import { freePort, startStatusFront } from "./loopback.mjs";

const here = dirname(fileURLToPath(import.meta.url));

/** The built program (go-build.sh's build_cached: once, into the cache folder). */
function program() {
  const script = 'source "$1/go-build.sh" && build_cached "$1/go-limiter-front" go-limiter-front "$2"';
  return execFileSync("bash", ["-c", script, "build", here, cacheRoot], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).trim();
}

/** Starts `kind` (httprate or ulule) on loopback in front of `upstream`, named `name` in its errors. */
async function startGoLimiterFront(kind, name, upstream, rate) {
  const port = await freePort();
  // It forwards to loopback over plain HTTP: an upstream without a port is on HTTP's (as haproxy-front.mjs reads one).
  const upstreamPort = new URL(upstream).port || "80";
  return startStatusFront(name, port, program(), [kind, String(port), upstreamPort, String(rate)]);
}

/**
 * Starts go-chi/httprate on loopback in front of `upstream` (a base URL on loopback): at most `rate` requests per key a
 * second. `refused()` and `passed()` count its decisions (one status a line, on its stdout).
 */
export function startHttprateFront(upstream, { rate }) {
  return startGoLimiterFront("httprate", "httprate's limiter", upstream, rate);
}

/** Starts ulule/limiter's windows on loopback in front of `upstream`: at most `rate` requests per key in each. */
export function startUluleFront(upstream, { rate }) {
  return startGoLimiterFront("ulule", "ulule's limiter", upstream, rate);
}
