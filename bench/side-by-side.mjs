// K stacks' `up`s, and the floor they are held to, measured side by side: the same stacks run once against a sandbox
// with no limit at all, which measures what K engines take here. The floor is the later of that run's last end and its
// first request plus the key's work, max(T + KN/R, 2KN/R): on two cores, K `pulumi up`s reach the API seconds apart,
// which no pacing wins back.

/**
 * Runs the stacks' `up`s against `api` (environment variables), the last one `lateMs` late; each one's end after the
 * first start, in ms (NaN for one that failed, said on stderr), and when they started (epoch ms).
 */
export async function ups(workspace, stacks, api, lateMs, label) {
  const startedAt = Date.now();
  const started = performance.now();
  const walls = await Promise.all(
    stacks.map(async (program, i) => {
      if (i === stacks.length - 1 && lateMs > 0) await new Promise((resolve) => setTimeout(resolve, lateMs));
      return workspace.cli(program, ["up", "--yes", "--skip-preview"], api).then(
        () => performance.now() - started,
        (error) => {
          console.error(`bench: ${label}: stack ${i} failed: ${String(error.message).slice(-1500)}`);
          return Number.NaN;
        },
      );
    }),
  );
  return { walls, startedAt };
}

/**
 * The side-by-side floor of K stacks of N orders on a key of R requests a second, each order ready T after its
 * purchase: the stacks' `up`s against a sandbox of `options` with no rate limit, then destroyed.
 */
export async function sideBySideFloor(workspace, stacks, startSandbox, options, { k, n, r, tMs, lateMs, label }) {
  const free = await startSandbox({ ...options, rateLimit: false });
  try {
    const api = { PROXY_API_BASE_URL: free.url, PROXY_API_KEY: free.apiKey };
    const unlimited = await ups(workspace, stacks, api, lateMs, `${label} (no limit)`);
    const firstRequest = Math.min(...free.requests.filter((q) => q.path.startsWith("/v1/")).map((q) => q.at)) - unlimited.startedAt;
    await Promise.all(stacks.map((program) => workspace.cli(program, ["destroy", "--yes", "--skip-preview"], api)));
    const floor = Math.max(Math.max(...unlimited.walls), firstRequest + Math.max(tMs + ((k * n) / r) * 1000, ((2 * k * n) / r) * 1000));
    const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
    return { floor, said: `the side-by-side floor ${seconds(floor)} (unlimited: ends ${unlimited.walls.map(seconds).join(", ")}, first request ${seconds(firstRequest)})` };
  } finally {
    await free.stop();
  }
}
