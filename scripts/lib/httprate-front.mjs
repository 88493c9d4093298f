// go-chi/httprate in front of an API (scripts/lib/httprate-front/main.go): a sliding window counter, the limiter of
// Go services on chi, with GitHub's hints on every answer, their reset the current window's end. `npm run bench` puts
// it in front of a sandbox with no limit of its own; the program is built from Go modules into the cache folder on
// first use (a folder named by its sources' hash), as scripts/ensure-proxies builds the Go proxies.
import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { cacheRoot } from "./cache-root.mjs";
import { freePort, startStatusFront } from "./loopback.mjs";

const here = dirname(fileURLToPath(import.meta.url));

/** The built program (go-build.sh's build_cached: once, into the cache folder). */
function program() {
  const script = 'source "$1/go-build.sh" && build_cached "$1/httprate-front" httprate-front "$2"';
  return execFileSync("bash", ["-c", script, "build", here, cacheRoot], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).trim();
}

/**
 * Starts the limiter on loopback in front of `upstream` (a base URL on loopback): at most `rate` requests per key a
 * second. `refused()` and `passed()` count its decisions (one status a line, on its stdout).
 */
export async function startHttprateFront(upstream, { rate }) {
  const port = await freePort();
  // It forwards to loopback over plain HTTP: an upstream without a port is on HTTP's (as haproxy-front.mjs reads one).
  const upstreamPort = new URL(upstream).port || "80";
  return startStatusFront("httprate's limiter", port, program(), [String(port), upstreamPort, String(rate)]);
}
