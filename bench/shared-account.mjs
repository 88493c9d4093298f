// Refresh in a shared account: `pulumi refresh` of a stack of N ProxyOrders in an account that also holds another
// stack's M orders of 5 proxies each, against a sandbox with no limit. Issue #35's goal: the refresh costs at most the
// account's list pages, or one read per order where that is cheaper, whatever else the account holds.
import { ORDERS_PROGRAM } from "./fleet.mjs";
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
