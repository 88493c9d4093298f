/**
 * Runs once before the tests: makes `require("pulumi-proxy")` resolve to this working tree (as an install would),
 * for the example tests and the end-to-end programs, and runs `npm run dist` once for the tests that install its
 * plugin archive or check its artifacts (not in the legs that run only the Node-dependent tests, none of which does:
 * scripts/run-tests.mjs).
 */
import { buildTestDist } from "./helpers/plugin-archive";
import { linkWorkingTree } from "./helpers/pulumi";

export default function setup(): void {
  linkWorkingTree();
  if (process.env.PULUMI_PROXY_TESTS !== "node-dependent") buildTestDist();
}
