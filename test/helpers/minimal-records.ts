/**
 * The life both front ends must live against an API of minimal records (the sandbox's `records: "minimal"`): the
 * programs test/e2e/programs/minimal-records and plugin-minimal-records, each a ProxyOrder of dc-us-5 and a ProxyFleet
 * of two mobile-fr-1 orders, each checked through its proxies.
 */
import { expect } from "vitest";
import type { PulumiProgram } from "./pulumi";
import type { StackUnderTest } from "./stack";

/** The type tokens of the front end's ProxyOrder and ProxyFleet. */
export interface FrontTypes {
  order: string;
  fleet: string;
}

/** The ids of the orders the state holds: the ProxyOrder's and every fleet member's, sorted. */
export async function orderIdsInState(program: PulumiProgram, types: FrontTypes): Promise<unknown[]> {
  const { resources } = await program.exportState();
  const order = resources.find((r) => r.type === types.order);
  const fleet = resources.find((r) => r.type === types.fleet);
  return [order?.outputs?.orderId, ...((fleet?.outputs?.members ?? []) as Array<{ orderId: string }>).map((m) => m.orderId)].sort();
}

/**
 * `up` buys three orders, and the state holds all three; every credential is `{ ip, port }`; both resources checked
 * 5 of 5 and 2 of 2 healthy; a second preview shows no changes, a refresh no drift, and nothing is bought again.
 */
export async function expectMinimalRecordsKept({ program, sandbox }: StackUnderTest, types: FrontTypes): Promise<void> {
  await program.config("target", sandbox.proxies?.echoUrl ?? "");
  const up = await program.up();
  expect(up.changeSummary).toMatchObject({ create: 3 });
  const bought = sandbox.createdOrders.map((o) => o.id).sort();
  expect(bought).toHaveLength(3);
  expect(await orderIdsInState(program, types)).toEqual(bought);

  const outputs = await program.outputs({ showSecrets: true });
  const wire = [...sandbox.state.orders.values()].find((o) => o.id === outputs.orderId)?.proxies ?? [];
  expect(outputs.credentials).toEqual(wire.map((p) => ({ ip: p.ip, port: p.port })));
  expect(outputs.proxies).toEqual(wire.map((p) => ({ ip: p.ip, port: p.port, type: p.type, country: p.country })));
  expect(outputs.fleetCredentials).toHaveLength(2);
  for (const credential of outputs.fleetCredentials as Array<Record<string, unknown>>) expect(Object.keys(credential).sort()).toEqual(["ip", "orderId", "port"]);
  expect(outputs.health).toMatchObject({ healthy: 5, total: 5 });
  expect(outputs.fleetHealth).toMatchObject({ healthy: 2, total: 2 });
  expect(JSON.stringify(outputs)).not.toMatch(/"username"|"password"|:@/);

  await program.preview("--expect-no-changes");
  const refresh = await program.refresh();
  expect(Object.keys(refresh.changeSummary ?? {})).toEqual(["same"]);
  await program.preview("--expect-no-changes");
  expect(sandbox.createdOrders).toHaveLength(3);
}
