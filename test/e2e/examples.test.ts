import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "../../sandbox";
import { PulumiProgram } from "../helpers/pulumi";

describe("examples/stack-outputs reads a proxy stack through a StackReference", () => {
  let sandbox: Sandbox;
  let producer: PulumiProgram;
  let consumer: PulumiProgram;

  beforeAll(async () => {
    sandbox = await startSandbox({ provisioningMs: 500 });
    producer = await PulumiProgram.create("examples/quickstart", "producer");
    await producer.useApi(sandbox);
    await producer.config("planId", "mobile-fr-1");
    await producer.up();
    consumer = await PulumiProgram.create("examples/stack-outputs", "consumer", { sameBackendAs: producer });
    await consumer.config("proxyStack", "organization/proxy-quickstart/producer");
  }, 180_000);
  afterAll(async () => {
    consumer?.cleanup();
    await producer?.destroy().catch(() => undefined);
    producer?.cleanup();
    await sandbox?.stop();
  });

  it("derives endpoints, secret proxy URLs and counts per country", async () => {
    await consumer.up();
    const outputs = await consumer.outputs();
    expect(outputs.proxyUrls).toBe("[secret]");
    expect(outputs.perCountry).toEqual({ FR: 1 });
    const endpoints = outputs.endpoints as string[];
    // The mobile plan's proxy has an IPv6 address: bracketed in host:port form.
    expect(endpoints[0]).toMatch(/^\[2001:db8::[0-9a-f]+\]:\d+$/);
    const urls = (await consumer.outputs({ showSecrets: true })).proxyUrls as string[];
    expect(urls[0]).toMatch(/^socks5:\/\/user_\w+:[0-9a-f]{24}@\[2001:db8::[0-9a-f]+\]:\d+$/);
    await consumer.destroy();
  });
});
