// go-chi/httprate in front of an API (scripts/lib/httprate-front/main.go): a sliding window counter, the limiter of
// Go services on chi, with GitHub's hints on every answer, their reset the current window's end. `npm run bench` puts
// it in front of a sandbox with no limit of its own; the program is built from Go modules into the cache folder on
// first use (a folder named by its sources' hash), as scripts/ensure-proxies builds the Go proxies.
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { cacheRoot } from "./cache-root.mjs";
import { freePort, startStatusFront } from "./loopback.mjs";

const sources = join(dirname(fileURLToPath(import.meta.url)), "httprate-front");
const FILES = ["go.mod", "go.sum", "main.go"];

/** The built program (built with go-build.sh's settings on first use). */
function program() {
  const hash = createHash("sha256");
  for (const file of FILES) hash.update(readFileSync(join(sources, file)));
  const dir = join(cacheRoot, `httprate-front-${hash.digest("hex").slice(0, 12)}`);
  const binary = join(dir, "httprate-front");
  if (!existsSync(binary)) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(join(dir, "src"), { recursive: true });
    for (const file of FILES) cpSync(join(sources, file), join(dir, "src", file));
    const goBuild = join(dirname(sources), "go-build.sh");
    execFileSync("bash", ["-c", `source "${goBuild}" && cd "${join(dir, "src")}" && go build -trimpath -ldflags "$GO_LDFLAGS" -o "${binary}.tmp" .`], { stdio: "inherit" });
    renameSync(`${binary}.tmp`, binary);
  }
  return binary;
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
