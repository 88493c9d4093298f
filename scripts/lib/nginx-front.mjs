// nginx's limit_req in front of an API, as its documentation configures it: a leaky bucket per key (counted on the
// `Authorization` header) that lets `burst` requests through at once and `rate` a second after that, and refuses the
// rest with 429 or with nginx's default 503. It sends no rate-limit hints and no `Retry-After`: the limiter many APIs
// stand behind, and the real software for the pacing without hints. The tests and `npm run bench` put it in front of a
// sandbox with no limit of its own. nginx comes from Debian's packages (scripts/ensure-proxies installs it).
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, listening } from "./loopback.mjs";

/**
 * Starts nginx on loopback in front of `upstream` (a base URL): `rate` requests a second per key after a `burst`,
 * the rest answered `status` (429 or 503). `refused()` and `passed()` count its answers from its access log.
 */
export async function startNginxFront(upstream, { rate, burst, status = 429, nginx = "nginx" }) {
  const dir = mkdtempSync(join(tmpdir(), "nginx-front-"));
  const port = await freePort();
  const log = join(dir, "access.log");
  const temp = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map((name) => `${name}_temp_path ${join(dir, name)};`).join("\n    ");
  writeFileSync(
    join(dir, "nginx.conf"),
    `daemon off;
master_process off;
pid ${join(dir, "nginx.pid")};
error_log ${join(dir, "error.log")} error;
events { worker_connections 1024; }
http {
    log_format status '$status';
    access_log ${log} status;
    ${temp}
    limit_req_zone $http_authorization zone=key:1m rate=${rate}r/s;
    server {
        listen 127.0.0.1:${port};
        location / {
            limit_req zone=key burst=${burst} nodelay;
            limit_req_status ${status};
            proxy_pass ${upstream};
            proxy_http_version 1.1;
            proxy_set_header Connection "";
        }
    }
}
`,
  );
  const child = spawn(nginx, ["-p", dir, "-c", join(dir, "nginx.conf"), "-e", join(dir, "error.log")], { stdio: "ignore" });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const failed = new Promise((_, reject) => child.once("error", reject));
  await Promise.race([listening(port, "nginx"), failed]);
  const statuses = () => {
    try {
      return readFileSync(log, "utf8").split("\n").filter(Boolean).map(Number);
    } catch {
      return [];
    }
  };
  return {
    url: `http://127.0.0.1:${port}`,
    refused: () => statuses().filter((s) => s === status).length,
    passed: () => statuses().filter((s) => s !== status).length,
    async stop() {
      child.kill("SIGTERM");
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
