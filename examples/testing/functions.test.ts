// The functions and ProxyApiClient outside setMocks, as a user tests them: they send through undici's global
// dispatcher, so nock intercepts them, and nock.disableNetConnect() blocks anything that is not mocked.
import nock from "nock";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ConnectionError, getUsage, ProxyApiClient } from "pulumi-proxy";

describe("the functions, with nock", () => {
  const api = "https://proxy-api.test";

  beforeAll(() => {
    nock.disableNetConnect();
    process.env.PROXY_API_BASE_URL = api;
    process.env.PROXY_API_KEY = "sk_test_key";
  });
  afterEach(() => nock.cleanAll());

  it("reads the usage from the mocked API", async () => {
    const usage = {
      period: { start: "2026-11-01T00:00:00Z", end: "2026-12-01T00:00:00Z" },
      as_of: "2026-11-22T00:00:00Z",
      bandwidth: { used_bytes: 1024, limit_bytes: null },
      requests: { used: 3, limit: null },
    };
    nock(api).get("/v1/usage").matchHeader("authorization", "Bearer sk_test_key").reply(200, usage);
    await expect(getUsage()).resolves.toMatchObject({ bandwidth: { usedBytes: 1024, limitBytes: null } });
  });

  it("cannot reach anything nock does not mock", async () => {
    const client = new ProxyApiClient({ baseUrl: "https://not-mocked.test", apiKey: "k", maxAttempts: 1 });
    const error = await client.getUsage().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    // Blocked by nock, before any name lookup: not a DNS failure of the made-up host.
    expect((error as Error).message).toMatch(/Disallowed net connect/);
  });
});
