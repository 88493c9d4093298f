/**
 * Runs once before the tests: makes `require("pulumi-proxy")` resolve to this working tree (as an install would),
 * for the example tests and the end-to-end programs, and builds the plugin's linux-amd64 archive they install (not
 * in the legs that run only the Node-dependent tests, none of which installs it: scripts/run-tests.mjs).
 */
import { buildPluginArchive } from "./helpers/plugin-archive";
import { linkWorkingTree } from "./helpers/pulumi";

export default function setup(): void {
  linkWorkingTree();
  if (process.env.PULUMI_PROXY_TESTS !== "node-dependent") buildPluginArchive();
}
