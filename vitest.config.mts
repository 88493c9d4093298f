import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The longest files first, the quick ones after: on two cores the quick files then fill the gaps at the end, instead
 * of one long file starting last and running alone. `LONGEST` is what a CI run measured, longest first, except that
 * the files that install the plugin archive (built once per run, while the first files run: scripts/run-tests.mjs)
 * come after those that do not (a file missing from the list only loses its place); then the other end-to-end files;
 * then the rest, each kind in vitest's own order.
 */
const LONGEST = [
  "test/e2e/examples-installed.test.ts",
  "test/e2e/fleet-resource.test.ts",
  "test/e2e/orders-kept.test.ts",
  "test/integration/every-fault.test.ts",
  "test/e2e/removed-order.test.ts",
  "test/e2e/api-move.test.ts",
  "test/e2e/plugin.test.ts",
  "test/e2e/dist.test.ts",
  "test/e2e/fleet.test.ts",
  "test/e2e/renewal.test.ts",
  "test/e2e/soak.test.ts",
];

class LongFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const listed = LONGEST.findIndex((name) => file.moduleId.endsWith(`/${name}`));
      if (listed >= 0) return listed;
      return file.moduleId.includes("/test/e2e/") ? LONGEST.length : LONGEST.length + 1;
    };
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
