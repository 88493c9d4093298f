/**
 * A failure after the purchase, injected the way a real API might cause it: no answer about the orders can be read
 * (deviant-api.ts's `unreadable-orders`), though the orders are made. Both front ends must record every order in the
 * state, and the next `up`, once the API answers as the contract says, must carry on with them without buying again
 * (issue 71).
 */
import { afterAll, beforeAll, expect } from "vitest";
import { startSandbox, type Sandbox } from "../../sandbox";
import { startDeviantApi, type DeviantApi } from "./deviant-api";
import { orderIdsInState, type FrontTypes } from "./minimal-records";
import { PulumiProgram } from "./pulumi";

/** A stack of `programPath` (a ProxyOrder of dc-us-5 and a fleet of two mobile-fr-1 orders) behind such an API. */
export function useUnreadableOrders(programPath: string, prepare: (program: PulumiProgram) => Promise<void> | void = () => undefined) {
  const held = {} as { sandbox: Sandbox; api: DeviantApi; program: PulumiProgram };
  beforeAll(async () => {
    held.sandbox = await startSandbox({ provisioningMs: 1000, serveProxies: true });
    held.api = await startDeviantApi(held.sandbox, "unreadable-orders");
    held.program = await PulumiProgram.create(programPath, "kept");
    await prepare(held.program);
    await held.program.useApi({ url: held.api.url, apiKey: held.sandbox.apiKey });
    await held.program.config("target", held.sandbox.proxies?.echoUrl ?? "");
  }, 300_000);
  afterAll(async () => {
    held.program?.cleanup();
    await held.api?.stop();
    await held.sandbox?.stop();
  });
  return held;
}

/** `up` fails after buying three orders, the state holds all three, and the next `up` finishes them, buying nothing. */
export async function expectOrdersKept(held: { sandbox: Sandbox; api: DeviantApi; program: PulumiProgram }, types: FrontTypes): Promise<void> {
  const { sandbox, api, program } = held;
  const failed = await program.run(["up", "--yes", "--skip-preview", "--non-interactive"], { allowFailure: true });
  expect(failed.code).not.toBe(0);
  const said = failed.stdout + failed.stderr;
  expect(said).toContain("the order was made");
  expect(said).toContain("recorded in the state");
  const bought = sandbox.createdOrders.map((o) => o.id).sort();
  expect(bought).toHaveLength(3);
  expect(await orderIdsInState(program, types)).toEqual(bought);

  api.heal();
  await program.up();
  expect(sandbox.createdOrders).toHaveLength(3);
  expect(await orderIdsInState(program, types)).toEqual(bought);
  expect(await program.outputs()).toMatchObject({ health: { healthy: 5, total: 5 }, fleetHealth: { healthy: 2, total: 2 } });
  await program.preview("--expect-no-changes");
}
