/**
 * A stack moved from one API to another and back, with the real CLI (provider/state/origin.ts, docs/going-live.md): for a
 * dynamic ProxyOrder, a ProxyOrder through the installed plugin and a ProxyFleet. Preview, up and refresh at the other
 * API drop no order and buy nothing, and name both APIs; pointing back changes nothing; `up --replace` buys anew there,
 * shown by its preview. A stack made by the previous release (its real code, packed), upgraded with `npm install`,
 * previews clean, keeps its orders when moved before anything recorded where they live, records it on a refresh, and
 * then moves the same way.
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "../../sandbox";
import { installPluginWithoutNode, testDist } from "../helpers/plugin-archive";
import { packThisTree, REPO_ROOT, type JsonSummary } from "../helpers/pulumi";
import { useStack, type StackUnderTest } from "../helpers/stack";

// The plugin archive this file installs: built once per run, maybe still under way (a hang guard, not a timing).
beforeAll(() => testDist(), 1_800_000);

/** The release before orders recorded where they live, packed (test/fixtures/previous-release). */
const PREVIOUS_RELEASE = join(REPO_ROOT, "test", "fixtures", "previous-release", "pulumi-proxy-0.1.0-0a11d9d.tgz");

/** The other API: another sandbox, another account's key. */
let other: Sandbox;
beforeAll(async () => {
  other = await startSandbox({ provisioningMs: 500, apiKey: "sk_sandbox_other_account_key" });
});
afterAll(async () => {
  await other?.stop();
  expect(other?.contractViolations ?? []).toEqual([]);
});

/** What the engine said, in one text. */
const said = (result: JsonSummary) => (result.diagnostics ?? []).map((d) => d.message).join("\n");
/** The operations on the proxy resources (not the stack, providers or functions). */
const proxyOps = (result: JsonSummary) => (result.steps ?? []).filter((s) => /Proxy(Order|Fleet)/.test(s.urn)).map((s) => s.op);

/**
 * Moves the stack to the other API and back. `held` reads the order ids the state holds.
 */
async function moveAndBack(stack: StackUnderTest, held: () => Promise<string[]>): Promise<void> {
  const { program, sandbox } = stack;
  other.reset();
  await program.up();
  const orders = await held();
  const bought = sandbox.createdOrders.length;
  expect(orders.length).toBeGreaterThan(0);

  await program.useApi({ url: other.url, apiKey: other.apiKey });
  const preview = await program.preview();
  expect(proxyOps(preview).every((op) => op === "same")).toBe(true);
  expect(said(preview)).toContain(`lives at ${sandbox.url}, but proxy:baseUrl (or PROXY_API_BASE_URL) is now ${other.url}`);
  const up = await program.up();
  expect(said(up)).toContain(`lives at ${sandbox.url}`);
  const refresh = await program.refresh();
  expect(said(refresh)).toContain(`lives at ${sandbox.url}`);
  expect(await held()).toEqual(orders);
  expect(other.createdOrders).toEqual([]);
  expect(other.requests.filter((r) => r.path.startsWith("/v1/orders"))).toEqual([]);

  await program.useApi({ url: sandbox.url, apiKey: sandbox.apiKey });
  const back = await program.preview("--expect-no-changes");
  expect(said(back)).not.toContain("lives at");
  await program.refresh();
  await program.preview("--expect-no-changes");
  expect(await held()).toEqual(orders);
  expect(sandbox.createdOrders).toHaveLength(bought);
}

/** The order ids of the stack's ProxyOrders. */
const orderIds = (stack: StackUnderTest) => async () =>
  (await stack.program.exportState()).resources.filter((r) => r.type.endsWith("ProxyOrder")).map((r) => String(r.id));

describe("a dynamic ProxyOrder moved to another API and back (real CLI)", () => {
  const stack = useStack("examples/quickstart", { stack: "moved", sandbox: { provisioningMs: 500 } });

  it("keeps its order, buys nothing, names both APIs; then buys anew there only by a replacement the preview shows", async () => {
    await moveAndBack(stack, orderIds(stack));
    const { program } = stack;
    const [order] = (await program.exportState()).resources.filter((r) => r.type.endsWith("ProxyOrder"));
    await program.useApi({ url: other.url, apiKey: other.apiKey });
    const preview = await program.preview("--replace", String(order?.urn));
    expect(proxyOps(preview)).toContain("replace");
    expect(other.createdOrders).toEqual([]);
    await program.up("--replace", String(order?.urn));
    expect(other.createdOrders).toHaveLength(1);
    expect(await orderIds(stack)()).toEqual([other.createdOrders[0]?.id]);
    await program.preview("--expect-no-changes");
  }, 600_000);
});

describe("a ProxyFleet moved to another API and back (real CLI)", () => {
  const stack = useStack("test/e2e/programs/proxy-fleet", { stack: "moved", sandbox: { provisioningMs: 500 } });

  it("keeps every member and buys nothing", async () => {
    const members = async () => {
      const fleet = (await stack.program.exportState()).resources.find((r) => r.type.endsWith("ProxyFleet"));
      return ((fleet?.outputs?.members ?? []) as Array<{ orderId: string }>).map((m) => m.orderId);
    };
    await moveAndBack(stack, members);
    expect(await members()).toHaveLength(3);
  }, 600_000);
});

describe("a ProxyOrder through the installed plugin moved to another API and back (real CLI)", () => {
  const stack = useStack("examples/plugin-yaml", { stack: "moved", sandbox: { provisioningMs: 500 }, prepare: installPluginWithoutNode });

  it("keeps its order, buys nothing, names both APIs", async () => {
    await moveAndBack(stack, orderIds(stack));
  }, 600_000);
});

describe("a stack of the previous release, upgraded with npm install, then moved and back (real CLI)", () => {
  let outside: string;
  const stack = useStack("examples/quickstart", {
    stack: "upgraded",
    sandbox: { provisioningMs: 500 },
    installedDir: () => {
      // The quickstart where a user keeps it, as it was then, with the release before origins installed from its
      // packed tarball.
      outside = mkdtempSync(join(tmpdir(), "pulumi-proxy-upgrade-"));
      const dir = join(outside, "quickstart");
      cpSync(join(REPO_ROOT, "examples", "quickstart"), dir, { recursive: true });
      cpSync(join(REPO_ROOT, "test", "fixtures", "previous-release", "quickstart-index.ts"), join(dir, "index.ts"));
      execFileSync("npm", ["install", "--no-audit", "--no-fund", PREVIOUS_RELEASE], { cwd: dir, stdio: "pipe" });
      return dir;
    },
  });
  afterAll(() => rmSync(outside, { recursive: true, force: true }));

  it("previews clean after the upgrade, moves before and after a refresh records where its orders live: nothing dropped, nothing bought", async () => {
    const { program, sandbox } = stack;
    await program.up();
    const orders = await orderIds(stack)();
    const recorded = async () => (await program.exportState()).text.includes(`"apiBaseUrl": "${sandbox.url}"`);
    expect((await program.exportState()).text).not.toContain("apiBaseUrl");
    // The upgrade, as a user makes it: this package's tarball over the previous one.
    execFileSync("npm", ["install", "--no-audit", "--no-fund", packThisTree(outside).tarball], { cwd: program.dir, stdio: "pipe" });
    const preview = await program.preview("--expect-no-changes");
    expect(said(preview)).toContain("records no API (an earlier release bought it); nothing is planned for it");
    await program.up();
    expect(await recorded()).toBe(false);

    // Moved before a refresh recorded anything: the other API's 404 drops nothing, and the way back is named.
    await program.useApi({ url: other.url, apiKey: other.apiKey });
    expect(proxyOps(await program.preview()).every((op) => op === "same")).toBe(true);
    await program.up();
    const refused = await program.refresh().then(
      () => "",
      (error: unknown) => String(error),
    );
    expect(refused).toContain("pulumi refresh --run-program");
    expect(await orderIds(stack)()).toEqual(orders);
    expect(other.createdOrders).toEqual([]);

    // Back, a refresh that runs the program records where each order lives; then the move is named and changes nothing.
    await program.useApi({ url: sandbox.url, apiKey: sandbox.apiKey });
    await program.refresh("--run-program");
    expect(await recorded()).toBe(true);
    await program.preview("--expect-no-changes");
    await moveAndBack(stack, orderIds(stack));
    expect(await orderIds(stack)()).toEqual(orders);
    expect(sandbox.createdOrders).toHaveLength(1);
    expect(other.createdOrders).toEqual([]);
  }, 600_000);
});
