/**
 * An API whose proxy records carry the seed's four fields only (the sandbox's `records: "minimal"`: allow-listed by
 * IP, no credentials), with the real CLI, from a JavaScript program (the dynamic provider): a ProxyOrder and a
 * ProxyFleet are bought and recorded, their proxies checked healthy without authentication, a second preview shows
 * no changes and a refresh no drift (issue 71; the plugin's side is minimal-records-plugin.test.ts).
 */
import { describe, expect, it } from "vitest";
import { useStack } from "../helpers/stack";
import { expectMinimalRecordsKept } from "../helpers/minimal-records";

describe("proxies of the seed's four fields from a JavaScript program (real CLI)", () => {
  const stack = useStack("test/e2e/programs/minimal-records", {
    stack: "minimal",
    sandbox: { provisioningMs: 1000, serveProxies: true, records: "minimal" },
  });

  it("records every order bought, checks the proxies healthy without credentials, then previews and refreshes clean", async () => {
    await expectMinimalRecordsKept(stack, { order: "pulumi-nodejs:dynamic/proxy:ProxyOrder", fleet: "pulumi-nodejs:dynamic/proxy:ProxyFleet" });
    const outputs = await stack.program.outputs({ showSecrets: true });
    // The functions of the program's own process: every proxy of the account, checked through itself.
    expect(outputs.listedCredentials).toHaveLength(7);
    expect(outputs.listedHealthy).toBe(7);
    // An order's proxies, by its id: the list names no order, so the order is read.
    expect(outputs.orderHealthy).toBe(5);
  }, 600_000);
});
