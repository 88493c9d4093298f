/**
 * Runs once before the tests: makes `require("pulumi-proxy")` resolve to this working tree (as an install would), for
 * the example tests and the end-to-end programs. The release artifacts some tests need are built once, when the first
 * of them asks (test/helpers/plugin-archive.ts), or earlier by `npm test`.
 */
import { linkWorkingTree } from "./helpers/pulumi";

export default function setup(): void {
  linkWorkingTree();
}
