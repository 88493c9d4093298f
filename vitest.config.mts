import { defineConfig } from "vitest/config";

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
  },
});
