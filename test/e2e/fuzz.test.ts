/**
 * A property-based fuzzer (Schemathesis) runs docs/openapi.json, as the sandbox serves it, against the sandbox: every
 * check (server errors, statuses, content types, headers, response schemas, negative and positive data, auth, unsupported
 * methods, the stateful links from a purchase to its order) must pass. The seed is fixed so that CI is repeatable;
 * change it to explore further.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "../../sandbox";
import { REPO_ROOT } from "../helpers/pulumi";
import { schemathesis } from "../helpers/python";

describe("fuzzing the sandbox with its OpenAPI document", () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ rateLimit: false, provisioningMs: 500 });
  });
  afterAll(async () => {
    await sandbox.stop();
  });

  it("finds nothing", async () => {
    const st = schemathesis();
    const run = await new Promise<{ status: number | null; output: string }>((resolve) => {
      // Asynchronous, so the sandbox in this process keeps answering.
      const child = spawn(st, [
        "--config-file", join(REPO_ROOT, "test", "fixtures", "schemathesis.toml"),
        "run", `${sandbox.url}/openapi.json`, "--url", sandbox.url,
        "-H", `Authorization: Bearer ${sandbox.apiKey}`,
        "--max-examples", "50", "--seed", "20261125", "--no-color",
      ], { env: { ...process.env, SCHEMATHESIS_TELEMETRY: "false" } });
      let output = "";
      child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
      child.on("close", (status) => resolve({ status, output }));
    });
    expect(run.output).toMatch(/\d+ generated, \d+ passed/);
    expect(run.status, run.output.slice(-4000)).toBe(0);
    expect(sandbox.contractViolations).toEqual([]);
  }, 600_000);
});
