/**
 * The API exchange in Pulumi's debug log: `pulumi preview --debug` shows each request and answer (method, path,
 * status, time), from the dynamic provider's host, from the program's functions and from the plugin; without
 * `--debug` none of it; never the key.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { installPluginWithoutNode, testDist } from "../helpers/plugin-archive";
import { useStack } from "../helpers/stack";

/** The debug lines of the API exchange in a CLI's output. */
function exchangeLines(output: string): string[] {
  return output.split("\n").filter((line) => /proxy: (GET|POST) \/v1\//.test(line));
}

describe("the dynamic provider (examples/quickstart)", () => {
  const stack = useStack("examples/quickstart", { sandbox: { provisioningMs: 500 } });
  const secrets = () => [stack.sandbox.apiKey, ...[...stack.sandbox.state.orders.values()].flatMap((o) => o.proxies.map((p) => p.password ?? stack.sandbox.apiKey))];

  it("preview --debug shows the key check's request with its status and time", async () => {
    const preview = await stack.program.run(["preview", "--debug"]);
    const lines = exchangeLines(preview.stdout + preview.stderr);
    expect(lines.some((line) => /GET \/v1\/usage -> 200 in \d+(ms|\.\ds) \(attempt 1, request id /.test(line))).toBe(true);
  });

  it("a preview without --debug shows none of it", async () => {
    const preview = await stack.program.run(["preview"]);
    expect(exchangeLines(preview.stdout + preview.stderr)).toEqual([]);
  });

  it("up --debug shows the purchase, the polls and the program's functions, and no key or password", async () => {
    const up = await stack.program.run(["up", "--yes", "--skip-preview", "--debug"]);
    const printed = up.stdout + up.stderr;
    const lines = exchangeLines(printed);
    expect(lines.some((line) => /POST \/v1\/orders -> 201 in /.test(line))).toBe(true);
    expect(lines.some((line) => /GET \/v1\/orders\/\S+ -> 200 in /.test(line))).toBe(true);
    // getProxiesOutput runs in the program's process, not the provider's.
    expect(lines.some((line) => /GET \/v1\/proxies\S* -> 200 in /.test(line))).toBe(true);
    // Pulumi's own debug lines print the provider's answers, passwords included (docs/troubleshooting.md says so);
    // the exchange's lines carry neither, and the key is nowhere.
    for (const secret of secrets()) expect(lines.join("\n")).not.toContain(secret);
    expect(printed).not.toContain(stack.sandbox.apiKey);
  });
});

describe("the provider plugin (examples/plugin-yaml)", () => {
  beforeAll(() => testDist(), 1_800_000);
  const stack = useStack("examples/plugin-yaml", { prepare: installPluginWithoutNode });

  it("preview --debug shows the key check's and the functions' requests, and not the key", async () => {
    const preview = await stack.program.run(["preview", "--debug"]);
    const lines = exchangeLines(preview.stdout + preview.stderr);
    expect(lines.some((line) => /GET \/v1\/usage -> 200 in \d+(ms|\.\ds) \(attempt 1, request id /.test(line))).toBe(true);
    expect(preview.stdout + preview.stderr).not.toContain(stack.sandbox.apiKey);
  });
});
