// K stacks on one key behind a real rate limiter, in front of a sandbox with no limit of its own, held to the floor
// measured side by side (side-by-side.mjs): express-rate-limit (scripts/lib/limiter-front.mjs), the fixed windows most
// limiters in front of real APIs count, with hints in each of its header modes; nginx's limit_req
// (scripts/lib/nginx-front.mjs), a leaky bucket with no hints at all; HAProxy's stick table
// (scripts/lib/haproxy-front.mjs), a sliding second with no hints either; a sliding log (scripts/lib/log-front.mjs,
// the limits library's moving window); go-chi/httprate, a sliding window counter, and ulule/limiter, windows from each
// one's first request (scripts/lib/go-limiter-front.mjs).
import { apiShape } from "./api-shape.mjs";
import { FLEET_PROGRAM } from "./fleet-resource.mjs";
import { sideBySideFloor, ups } from "./side-by-side.mjs";
import { benchWorkspace } from "./workspace.mjs";
import { LIMITER_MODES, startLimiterFront } from "../scripts/lib/limiter-front.mjs";
import { startHaproxyFront } from "../scripts/lib/haproxy-front.mjs";
import { startNginxFront } from "../scripts/lib/nginx-front.mjs";
import { startLogFront } from "../scripts/lib/log-front.mjs";
import { startHttprateFront, startUluleFront } from "../scripts/lib/go-limiter-front.mjs";

/**
 * `BENCH_LIMITER_CASES`: K:N:R:T:<mode>:window=<s>, comma separated, with the sandbox's flags and `:late=<s>`: K stacks
 * of a fleet of N each, behind express-rate-limit in `mode` (legacy, draft-6, draft-7, draft-8) allowing R × s requests
 * in each window of s seconds; or, with `:nginx=<status>:burst=<b>` instead of a mode, behind nginx's limit_req at R a
 * second after a burst of b, refusing with that status; or, with `:haproxy=<status>`, behind HAProxy's stick table at
 * R in any second; or, with `:log`, behind a sliding log of R in any second (scripts/lib/log-front.mjs); or, with
 * `:httprate`, behind go-chi/httprate's counter of R a second, or with `:ulule`, behind ulule/limiter's windows of R
 * (scripts/lib/go-limiter-front.mjs). By default issue #60's
 * cases (4 stacks of 50, the last 10 s late, each mode, windows of 1 s and 10 s, 10 a second), the same stacks behind
 * nginx with its default 503, behind HAProxy with 429, behind the sliding log, httprate and ulule, and one fleet of 200
 * alone behind the log and httprate.
 */
export const DEFAULT_LIMITER_CASES = [
  ...LIMITER_MODES.flatMap((mode) => [1, 10].map((window) => `4:50:10:20:${mode}:window=${window}:no-estimates:latency=40:late=10`)),
  "4:50:10:20:nginx=503:burst=10:no-estimates:latency=40:late=10",
  "4:50:10:20:haproxy=429:no-estimates:latency=40:late=10",
  "1:200:10:20:log:no-estimates:latency=40",
  "4:50:10:20:log:no-estimates:latency=40:late=10",
  "1:200:10:20:httprate:no-estimates:latency=40",
  "4:50:10:20:httprate:no-estimates:latency=40:late=10",
  "4:50:10:20:ulule:no-estimates:latency=40:late=10",
].join(",");

/** The limiter a case names, its label, and the goals of its figures (without hints, the first refusals teach the rate). */
function limiterOf(spec, r) {
  const nginx = /:nginx=(\d+)/.exec(spec);
  if (nginx) {
    const status = Number(nginx[1]);
    const burst = Number(/:burst=(\d+)/.exec(spec)?.[1] ?? r);
    return {
      label: `nginx's limit_req (${r}/s after a burst of ${burst}, refusing with ${status}, no hints)`,
      start: (url) => startNginxFront(url, { rate: r, burst, status }),
      goals: { share: 0.1, ratio: 1.5 },
    };
  }
  if (spec.split(":").includes("log")) {
    return {
      label: `a sliding log (the limits library's moving window, as Flask-Limiter states it: ${r} in any second, GitHub's hints with every answer)`,
      start: (url) => startLogFront(url, { rate: r }),
      goals: { share: 0.02, ratio: 1.25 },
    };
  }
  if (spec.split(":").includes("ulule")) {
    return {
      label: `ulule/limiter (windows of ${r} a second, each from its first request, GitHub's hints with every answer, their reset the window's end, no Retry-After)`,
      start: (url) => startUluleFront(url, { rate: r }),
      goals: { share: 0.02, ratio: 1.25 },
    };
  }
  if (spec.split(":").includes("httprate")) {
    return {
      label: `go-chi/httprate (a sliding window counter of ${r} a second, GitHub's hints with every answer, their reset the window's end)`,
      start: (url) => startHttprateFront(url, { rate: r }),
      goals: { share: 0.02, ratio: 1.25 },
    };
  }
  const haproxy = /:haproxy=(\d+)/.exec(spec);
  if (haproxy) {
    const status = Number(haproxy[1]);
    return {
      label: `HAProxy's stick table (${r} in any second, refusing with ${status}, no hints)`,
      start: (url) => startHaproxyFront(url, { rate: r, status }),
      goals: { share: 0.1, ratio: 1.5 },
    };
  }
  const mode = LIMITER_MODES.find((m) => spec.split(":").includes(m)) ?? "draft-7";
  const windowSeconds = Number(/:window=(\d+)/.exec(spec)?.[1] ?? 1);
  return {
    label: `express-rate-limit (${mode}, ${r * windowSeconds} per ${windowSeconds} s window)`,
    start: (url) => startLimiterFront(url, { mode, limit: r * windowSeconds, windowMs: windowSeconds * 1000 }),
    goals: { share: 0.02, ratio: 1.25 },
  };
}

/** The figures of each case: the share answered 429, and the last up against the side-by-side floor. */
export async function limiterStackFigures(root, startSandbox, cases = DEFAULT_LIMITER_CASES) {
  const workspace = await benchWorkspace(root);
  const figures = [];
  const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
  const stacks = [];
  try {
    for (const spec of cases.split(",").filter(Boolean)) {
      const [k, n, r, t] = spec.split(":").slice(0, 4).map(Number);
      const limiter = limiterOf(spec, r);
      const lateMs = Number(/:late=(\d+)/.exec(spec)?.[1] ?? 0) * 1000;
      const tMs = t * 1000;
      const ours = ["window=", "nginx=", "burst=", "haproxy=", "log", "httprate", "ulule"];
      const shape = apiShape(spec.split(":").slice(1).filter((f) => !ours.some((flag) => f.startsWith(flag))).join(":"), 0, tMs);
      while (stacks.length < k) stacks.push(await workspace.program(`proxy-fleet-limited-${stacks.length}`, FLEET_PROGRAM));
      const these = stacks.slice(0, k);
      for (const program of these) await workspace.cli(program, ["config", "set", "count", String(n)]);
      const label = `${k} stacks on one key, a fleet of ${n} each${lateMs ? `, the last ${lateMs / 1000} s late` : ""}, behind ${limiter.label}, T = ${t} s${shape.label}`;

      const { floor, said } = await sideBySideFloor(workspace, these, startSandbox, shape.options, { k, n, r, tMs, lateMs, label });

      const sandbox = await startSandbox({ ...shape.options, rateLimit: false });
      const front = await limiter.start(sandbox.url);
      const limited = await ups(workspace, these, { PROXY_API_BASE_URL: front.url, PROXY_API_KEY: sandbox.apiKey }, lateMs, label);
      const sent = front.refused() + front.passed();
      const share = sent > 0 ? front.refused() / sent : 0;
      const bought = sandbox.createdOrders.length;
      const { goals } = limiter;
      figures.push([
        "ProxyFleet, real limiter",
        `${label}: ${bought} purchases, ${front.refused()} of ${sent} requests refused`,
        `${(share * 100).toFixed(1)}%`,
        `${k * n} purchases, <= ${goals.share * 100}%`,
        bought === k * n && share <= goals.share ? "met" : "missed",
      ]);
      const last = Math.max(...limited.walls);
      figures.push([
        "ProxyFleet, real limiter",
        `${label}: ups end ${limited.walls.map(seconds).join(", ")} vs ${said}`,
        `${(last / floor).toFixed(2)}x`,
        `<= ${goals.ratio}x, the last`,
        last / floor <= goals.ratio ? "met" : "missed",
      ]);
      await Promise.all(these.map((program) => workspace.cli(program, ["destroy", "--yes", "--skip-preview"], { PROXY_API_BASE_URL: front.url, PROXY_API_KEY: sandbox.apiKey }).catch(() => undefined)));
      await front.stop();
      await sandbox.stop();
    }
  } finally {
    workspace.cleanup();
  }
  return figures;
}
