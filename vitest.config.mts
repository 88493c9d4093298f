import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The end-to-end files first (each drives the real CLI for a minute or more), the rest after: on two cores the quick
 * files then fill the gaps at the end, instead of one long file starting last and running alone. Within a kind,
 * vitest's own order (its cached durations, where it has them) stays.
 */
class LongFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => (file.moduleId.includes("/test/e2e/") || file.moduleId.endsWith("every-fault.test.ts") ? 0 : 1);
    return [...(await super.sort(files))].sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  test: {
    // examples/testing holds a user's unit tests of a program; running them here keeps the README's recipe true.
    include: ["test/**/*.test.ts", "examples/testing/*.test.ts"],
    // Links this tree as node_modules/pulumi-proxy, as an install would, before any test file loads.
    globalSetup: ["test/global-setup.ts"],
    // End-to-end tests drive the real Pulumi CLI through several commands each; these are hang guards, not timings.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    maxWorkers: 2,
    sequence: { sequencer: LongFilesFirst },
  },
});
