import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PulumiProgram } from "../helpers/pulumi";

const TOKEN = "harness-secret-6f1d2c";

describe("the Pulumi CLI harness", () => {
  let program: PulumiProgram;
  beforeAll(async () => {
    program = await PulumiProgram.create("test/e2e/programs/harness");
    await program.config("harness:text", "hello");
    await program.config("harness:token", TOKEN, { secret: true });
  }, 120_000);
  afterAll(() => program?.cleanup());

  it("runs preview, up, a quiet preview, refresh without drift, and destroy; the secret stays encrypted", async () => {
    const preview = await program.preview();
    expect(preview.steps?.map((s) => s.op)).toEqual(["create", "create"]);
    const up = await program.up();
    expect(up.changeSummary).toEqual({ create: 2 });
    expect(await program.outputs()).toEqual({ length: 5, token: "[secret]" });
    expect((await program.outputs({ showSecrets: true })).token).toBe(TOKEN);
    await program.preview("--expect-no-changes");
    expect((await program.refresh()).changeSummary).toEqual({ same: 2 });
    await program.preview("--expect-no-changes");
    const state = await program.exportState();
    expect(state.text).not.toContain(TOKEN);
    expect(state.resources.some((r) => r.type === "pulumi-nodejs:dynamic/harness:Note")).toBe(true);
    expect((await program.destroy()).changeSummary).toEqual({ delete: 2 });
  });

  it("fails loudly with the CLI's own output", async () => {
    await expect(program.run(["stack", "select", "no-such-stack"])).rejects.toThrow(/no-such-stack[\s\S]*--- stderr/);
  });
});
