/**
 * An API whose proxy records carry the seed's four fields only, with the real CLI, from a YAML program through the
 * plugin (no Node.js on PATH): the same life as minimal-records.test.ts for the dynamic provider (issue 71).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { installPluginWithoutNode, testDist } from "../helpers/plugin-archive";
import { useStack } from "../helpers/stack";
import { expectMinimalRecordsKept } from "../helpers/minimal-records";

// The plugin archive this file installs: built once per run, maybe still under way (a hang guard, not a timing).
beforeAll(() => testDist(), 1_800_000);

describe("proxies of the seed's four fields from a YAML program through the plugin (real CLI)", () => {
  const stack = useStack("test/e2e/programs/plugin-minimal-records", {
    stack: "minimal",
    sandbox: { provisioningMs: 1000, serveProxies: true, records: "minimal" },
    prepare: installPluginWithoutNode,
  });

  it("records every order bought, checks the proxies healthy without credentials, then previews and refreshes clean", async () => {
    await expectMinimalRecordsKept(stack, { order: "proxy:index:ProxyOrder", fleet: "proxy:index:ProxyFleet" });
    const outputs = await stack.program.outputs({ showSecrets: true });
    expect(outputs.listedCredentials).toHaveLength(5);
    expect(outputs.listedHealthy).toBe(5);
    expect(outputs.usedBytes).toBeGreaterThanOrEqual(0);
  }, 600_000);
});
