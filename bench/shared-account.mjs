// Refresh in a shared account: `pulumi refresh` of a stack of N ProxyOrders in an account that also holds another
// stack's M orders of 5 proxies each, against a sandbox with no limit. Issue #35's goal: the refresh costs at most the
// account's list pages, or one read per order where that is cheaper, whatever else the account holds. Then issue #52's:
// a ProxyFleet of M alone in its account costs the cheaper of its pages and its batches of ids, and N ProxyOrders
// bought after it in the same account the cheaper of the account's pages and their own batches.
import { ORDERS_PROGRAM } from "./fleet.mjs";
import { FLEET_PROGRAM } from "./fleet-resource.mjs";
import { benchWorkspace } from "./workspace.mjs";

/** `BENCH_SHARED_ACCOUNT`: N:M, the stack's orders and the other stack's. */
export const DEFAULT_SHARED_ACCOUNT = "50:1000";

export async function sharedAccountFigures(root, startSandbox, plans, spec = DEFAULT_SHARED_ACCOUNT) {
  const [n, others] = spec.split(":").map(Number);
  const workspace = await benchWorkspace(root);
  try {
    const program = await workspace.program("shared-account", ORDERS_PROGRAM);
    const sandbox = await startSandbox({ rateLimit: false, provisioningMs: 0 });
    const api = { PROXY_API_BASE_URL: sandbox.url, PROXY_API_KEY: sandbox.apiKey };
    await workspace.cli(program, ["config", "set", "count", String(n)]);
    await workspace.cli(program, ["up", "--yes", "--skip-preview"], api);
    // The other stack's orders, made straight in the sandbox's state: they cost the refresh only what listing them
    // would.
    const plan = plans["dc-us-5"];
    for (let i = 0; i < others; i++) sandbox.state.createOrder(plan, Date.now(), { provisioningMs: 0 }, { hiddenReads: 0, fails: false });
    const pages = Math.ceil(((n + others) * plan.proxyCount) / 1000);
    const before = sandbox.requests.length;
    await workspace.cli(program, ["refresh", "--yes", "--skip-preview", "--expect-no-changes"], api);
    const requests = sandbox.requests.length - before;
    const goal = Math.min(pages, n);
    await workspace.cli(program, ["destroy", "--yes", "--skip-preview"], api);
    await sandbox.stop();
    return [
      ...(await besideAFleet(workspace, startSandbox, n, others)),
      [
        "refresh, shared account",
        `${n} unchanged ProxyOrders in an account that also holds ${others} other orders (${pages} list pages): requests`,
        String(requests),
        `<= ${goal} (the fewer of the account's pages and the orders)`,
        requests <= goal ? "met" : "missed",
      ],
    ];
  } finally {
    workspace.cleanup();
  }
}

/** A fleet of `m` alone in its account, refreshed; then `n` ProxyOrders bought after it, refreshed. */
async function besideAFleet(workspace, startSandbox, n, m) {
  const sandbox = await startSandbox({ rateLimit: false, provisioningMs: 0 });
  const api = { PROXY_API_BASE_URL: sandbox.url, PROXY_API_KEY: sandbox.apiKey };
  const fleet = await workspace.program("shared-account-fleet", FLEET_PROGRAM);
  const orders = await workspace.program("shared-account-orders", ORDERS_PROGRAM);
  const refresh = async (program) => {
    const before = sandbox.requests.length;
    await workspace.cli(program, ["refresh", "--yes", "--skip-preview", "--expect-no-changes"], api);
    return sandbox.requests.length - before;
  };
  try {
    await workspace.cli(fleet, ["config", "set", "count", String(m)]);
    await workspace.cli(fleet, ["up", "--yes", "--skip-preview"], api);
    const fleetPages = Math.ceil((m * 5) / 1000);
    const alone = await refresh(fleet);
    const aloneGoal = Math.min(fleetPages, 1 + Math.ceil(m / 100));
    await workspace.cli(orders, ["config", "set", "count", String(n)]);
    await workspace.cli(orders, ["up", "--yes", "--skip-preview"], api);
    const beside = await refresh(orders);
    const besideGoal = Math.min(Math.ceil(((m + n) * 5) / 1000), 1 + Math.ceil(n / 100));
    await workspace.cli(orders, ["destroy", "--yes", "--skip-preview"], api);
    await workspace.cli(fleet, ["destroy", "--yes", "--skip-preview"], api);
    return [
      [
        "refresh, shared account",
        `an unchanged ProxyFleet of ${m} alone in its account (${fleetPages} list pages, or the first and ${Math.ceil(m / 100)} batches of ids): requests`,
        String(alone),
        `<= ${aloneGoal} (the fewer)`,
        alone <= aloneGoal ? "met" : "missed",
      ],
      [
        "refresh, shared account",
        `${n} unchanged ProxyOrders bought after that fleet, in its account, at the CLI's default --parallel: requests`,
        String(beside),
        `<= ${besideGoal} (the fewer of the account's pages and the first page and their batches)`,
        beside <= besideGoal ? "met" : "missed",
      ],
    ];
  } finally {
    await sandbox.stop();
  }
}
