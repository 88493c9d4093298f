// K stacks on one key behind express-rate-limit (scripts/lib/limiter-front.mjs), in front of a sandbox with no limit
// of its own: the pacing against the fixed windows most limiters in front of real APIs count, held to the floor
// measured side by side (side-by-side.mjs).
import { apiShape } from "./api-shape.mjs";
import { FLEET_PROGRAM } from "./fleet-resource.mjs";
import { sideBySideFloor, ups } from "./side-by-side.mjs";
import { benchWorkspace } from "./workspace.mjs";
import { LIMITER_MODES, startLimiterFront } from "../scripts/lib/limiter-front.mjs";

/**
 * `BENCH_LIMITER_CASES`: K:N:R:T:<mode>:window=<s>, comma separated, with the sandbox's flags and `:late=<s>`: K stacks
 * of a fleet of N each, behind express-rate-limit in `mode` (legacy, draft-6, draft-7, draft-8) allowing R × s requests
 * in each window of s seconds. By default issue #60's cases: 4 stacks of 50, the last 10 s late, each mode, windows of
 * 1 s and 10 s (10 a second).
 */
export const DEFAULT_LIMITER_CASES = LIMITER_MODES.flatMap((mode) =>
  [1, 10].map((window) => `4:50:10:20:${mode}:window=${window}:no-estimates:latency=40:late=10`),
).join(",");

/** The figures of each case: the share answered 429, and the last up against the side-by-side floor. */
export async function limiterStackFigures(root, startSandbox, cases = DEFAULT_LIMITER_CASES) {
  const workspace = await benchWorkspace(root);
  const figures = [];
  const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
  const stacks = [];
  try {
    for (const spec of cases.split(",").filter(Boolean)) {
      const [k, n, r, t] = spec.split(":").slice(0, 4).map(Number);
      const mode = LIMITER_MODES.find((m) => spec.split(":").includes(m)) ?? "draft-7";
      const windowSeconds = Number(/:window=(\d+)/.exec(spec)?.[1] ?? 1);
      const lateMs = Number(/:late=(\d+)/.exec(spec)?.[1] ?? 0) * 1000;
      const tMs = t * 1000;
      const shape = apiShape(spec.split(":").slice(1).filter((f) => !f.startsWith("window=")).join(":"), 0, tMs);
      while (stacks.length < k) stacks.push(await workspace.program(`proxy-fleet-limited-${stacks.length}`, FLEET_PROGRAM));
      const these = stacks.slice(0, k);
      for (const program of these) await workspace.cli(program, ["config", "set", "count", String(n)]);
      const label = `${k} stacks on one key, a fleet of ${n} each${lateMs ? `, the last ${lateMs / 1000} s late` : ""}, behind express-rate-limit (${mode}, ${r * windowSeconds} per ${windowSeconds} s window), T = ${t} s${shape.label}`;

      const { floor, said } = await sideBySideFloor(workspace, these, startSandbox, shape.options, { k, n, r, tMs, lateMs, label });

      const sandbox = await startSandbox({ ...shape.options, rateLimit: false });
      const front = await startLimiterFront(sandbox.url, { mode, limit: r * windowSeconds, windowMs: windowSeconds * 1000 });
      const limited = await ups(workspace, these, { PROXY_API_BASE_URL: front.url, PROXY_API_KEY: sandbox.apiKey }, lateMs, label);
      const sent = front.refused() + front.passed();
      const share = sent > 0 ? front.refused() / sent : 0;
      const bought = sandbox.createdOrders.length;
      figures.push([
        "ProxyFleet, real limiter",
        `${label}: ${bought} purchases, ${front.refused()} of ${sent} requests answered 429`,
        `${(share * 100).toFixed(1)}%`,
        `${k * n} purchases, <= 2%`,
        bought === k * n && share <= 0.02 ? "met" : "missed",
      ]);
      const last = Math.max(...limited.walls);
      figures.push([
        "ProxyFleet, real limiter",
        `${label}: ups end ${limited.walls.map(seconds).join(", ")} vs ${said}`,
        `${(last / floor).toFixed(2)}x`,
        "<= 1.25x, the last",
        last / floor <= 1.25 ? "met" : "missed",
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
