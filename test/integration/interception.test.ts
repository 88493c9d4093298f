/**
 * How a user's tests meet the client: it sends through undici's global dispatcher, so nock intercepts it and
 * `disableNetConnect` blocks it, even for a real server on loopback.
 */
import nock from "nock";
import { afterEach, describe, expect, it } from "vitest";
import { ConnectionError } from "../../client/errors";
import { useSandbox } from "../helpers/sandbox";

const sandbox = useSandbox();
const client = () => sandbox.client({ maxAttempts: 1 });

describe("nock", () => {
  afterEach(() => {
    nock.cleanAll();
    nock.enableNetConnect();
  });

  it("intercepts the client's requests", async () => {
    nock(sandbox.current.url).get("/v1/usage").reply(200, {
      period: { start: "2026-11-01T00:00:00Z", end: "2026-12-01T00:00:00Z" },
      as_of: "2026-11-22T00:00:00Z",
      bandwidth: { used_bytes: 42, limit_bytes: null },
      requests: { used: 1, limit: null },
    });
    expect((await client().getUsage()).bandwidth.usedBytes).toBe(42);
    expect(sandbox.current.requests).toEqual([]);
  });

  it("blocks a real server on loopback once disableNetConnect is on", async () => {
    nock.disableNetConnect();
    const error = await client().getUsage().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toMatch(/Disallowed net connect|NetConnectNotAllowed/i);
    expect(sandbox.current.requests).toEqual([]);
  });
});
