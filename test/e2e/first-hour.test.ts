/**
 * A stack with no settings, previewed as a new user's first try: the fix is said once, in full, and every other
 * failure says only where it is; nothing else is printed and nothing is sent. From the dynamic provider (a program
 * with an order, a fleet and functions) and the plugin (a YAML program).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { installPluginWithoutNode, testDist } from "../helpers/plugin-archive";
import { parseJsonOutput, PulumiProgram } from "../helpers/pulumi";

const NOT_CONFIGURED = "The proxy provider is not configured. Set the API base URL";

/** A preview of `programPath` on a new stack with no settings: its exit code, all it printed and its diagnostics. */
async function unconfiguredPreview(programPath: string, prepare?: (program: PulumiProgram) => Promise<void>) {
  const program = await PulumiProgram.create(programPath);
  try {
    await prepare?.(program);
    const result = await program.run(["preview", "--json"], { allowFailure: true });
    return { code: result.code, printed: result.stdout + result.stderr, diagnostics: parseJsonOutput(result.stdout).diagnostics ?? [] };
  } finally {
    program.cleanup();
  }
}

describe("a preview with no settings", () => {
  it("dynamic provider: says how to configure once, as the stack's error; each resource's failure points to it", async () => {
    const { code, printed, diagnostics } = await unconfiguredPreview("test/e2e/programs/first-hour");
    expect(code).not.toBe(0);
    const errors = diagnostics.filter((d) => d.severity === "error").map((d) => d.message);
    expect(errors.filter((m) => m.includes(NOT_CONFIGURED))).toHaveLength(1);
    expect(errors.filter((m) => !m.includes(NOT_CONFIGURED)).every((m) => m.includes("not configured (the stack's error says what to set)"))).toBe(true);
    // The functions' Outputs are unknown rather than failed a second time (a failed apply would also hold the end).
    expect(printed).not.toMatch(/PromiseRejection|unhandled exception/);
  }, 120_000);

  describe("plugin", () => {
    beforeAll(() => testDist(), 1_800_000);
    it("says how to configure once, on the provider", async () => {
      const { code, diagnostics } = await unconfiguredPreview("examples/plugin-yaml", installPluginWithoutNode);
      expect(code).not.toBe(0);
      const errors = diagnostics.filter((d) => d.severity === "error").map((d) => d.message);
      expect(errors.filter((m) => m.includes("is not configured"))).toHaveLength(1);
    }, 120_000);
  });
});
