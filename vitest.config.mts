import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The longest files first, the quick ones after: on two cores the quick files then fill the gaps at the end, instead
 * of one long file starting last and running alone. `LONGEST` is what a CI run measured, longest first, except that
 * the files that install the plugin archive (built once per run, while the first files run: scripts/run-tests.mjs)
 * come after those that do not (a file missing from the list only loses its place); then the other end-to-end files;
 * then the rest, each kind in vitest's own order. Given a seed (`--sequence.seed`, as scripts/run-tests.mjs passes
 * one), each kind is shuffled by it instead, so that no file leans on another having run first: vitest's own
 * `--sequence.shuffle.files` does nothing beside a sequencer of the config's.
 */
const LONGEST = [
  "test/e2e/fleet-resource.test.ts",
  "test/e2e/upgrade.test.ts",
  "test/e2e/removed-order.test.ts",
  "test/integration/every-fault.test.ts",
  "test/e2e/soak.test.ts",
  "test/e2e/examples-installed.test.ts",
  "test/e2e/orders-kept.test.ts",
  "test/e2e/fleet.test.ts",
  "test/e2e/plugin.test.ts",
  "test/e2e/api-move.test.ts",
  "test/e2e/dist.test.ts",
  "test/e2e/renewal.test.ts",
];

class LongFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const listed = LONGEST.findIndex((name) => file.moduleId.endsWith(`/${name}`));
      if (listed >= 0) return listed;
      return file.moduleId.includes("/test/e2e/") ? LONGEST.length : LONGEST.length + 1;
    };
    const seed = this.ctx.config.sequence.seed;
    if (seed === undefined) return [...(await super.sort(files))].sort((a, b) => rank(a) - rank(b));
    // Shuffled within each kind: the listed files, the other end-to-end files, the rest.
    const kind = (file: TestSpecification) => Math.max(0, rank(file) - LONGEST.length + 1);
    return shuffled(files, seed).sort((a, b) => kind(a) - kind(b));
  }
}

/** `items` in an order drawn from `seed` (mulberry32), the same for the same seed. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  let state = seed >>> 0;
  const random = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
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
