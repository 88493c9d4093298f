/**
 * Claims of the users' pages that a number or a list in the code decides, held to that code: what `check-api` costs,
 * which statuses a GET is retried on, which config keys the provider reads, and where the package's README links.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkApi } from "../../check/assumptions";
import { isRetryable } from "../../client/retry";
import { CONFIG_KEYS } from "../../provider/core/config";
import { startSandbox } from "../../sandbox";
import { REPO_ROOT } from "../helpers/pulumi";

const page = (name: string) => readFileSync(join(REPO_ROOT, "docs", name), "utf8").replace(/\s+/g, " ");

describe("what the docs say, as the code does it", () => {
  it("check-api, read-only, costs the requests going-live.md names", async () => {
    const sandbox = await startSandbox({});
    try {
      await checkApi({ baseUrl: sandbox.url, apiKey: sandbox.apiKey });
      const sent = sandbox.requests.filter((r) => r.path.startsWith("/v1/")).length;
      expect(page("going-live.md")).toContain(`it costs ${sent} requests`);
    } finally {
      await sandbox.stop();
    }
  });

  it("a GET is retried on exactly the statuses api-client.md lists", () => {
    const retried = Array.from({ length: 200 }, (_, i) => 400 + i).filter((status) => status !== 429 && isRetryable({ status, idempotent: true }));
    const listed = /retried on connection errors, ([\d, and]+), with exponential backoff/.exec(page("api-client.md"))?.[1];
    expect(listed?.split(/, | and |, and /).map(Number)).toEqual(retried.filter((status) => status !== 409));
  });

  it("the dynamic provider reads the config keys installation-configuration.md counts", () => {
    const keys = Object.values(CONFIG_KEYS).map((c) => c.key);
    const said = /reads the same (\w+) config keys and environment variables \(([^)]*)\)/.exec(page("installation-configuration.md"));
    expect(said?.[1]).toBe(["one", "two", "three", "four"][keys.length - 1]);
    expect(said?.[2].replace(/`/g, "").split(", ")).toEqual(keys);
  });
});
