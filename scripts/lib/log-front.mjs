// A sliding-log rate limiter in front of an API (scripts/lib/log-front.py): the `limits` library's moving window, as
// Flask-Limiter and slowapi count and state it. Its reset is when the oldest request leaves the log, which frees one
// request, not the whole quota. `npm run bench` puts it in front of a sandbox with no limit of its own; `limits` is
// installed from PyPI into the cache folder on first use.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { cacheRoot } from "./cache-root.mjs";
import { freePort, startStatusFront } from "./loopback.mjs";

const LIMITS_VERSION = "5.8.0";
const here = dirname(fileURLToPath(import.meta.url));

/** The folder holding `limits` (installed with pip on first use). */
function limitsPath() {
  const dir = join(cacheRoot, `python-limits-${LIMITS_VERSION}`);
  if (!existsSync(join(dir, "limits"))) {
    const pip = ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--root-user-action=ignore"];
    execFileSync("python3", [...pip, "--target", dir, `limits==${LIMITS_VERSION}`], { stdio: "inherit" });
  }
  return dir;
}

/**
 * Starts the limiter on loopback in front of `upstream` (a base URL on loopback): at most `rate` requests per key in
 * any second. `refused()` and `passed()` count its decisions (one status a line, on its stdout).
 */
export async function startLogFront(upstream, { rate }) {
  const port = await freePort();
  // It forwards to loopback over plain HTTP: an upstream without a port is on HTTP's (as haproxy-front.mjs reads one).
  const upstreamPort = new URL(upstream).port || "80";
  return startStatusFront("the sliding-log limiter", port, "python3", [join(here, "log-front.py"), String(port), upstreamPort, String(rate)], {
    env: { ...process.env, PYTHONPATH: limitsPath() },
  });
}
