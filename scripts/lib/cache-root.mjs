#!/usr/bin/env node
// Where this project caches what it builds or downloads outside the repository (the Pulumi CLI, language hosts, Node
// binaries, the SDK generator, Python environments, the test legs' trees): one folder, spelled here only. Imported by
// the Node scripts and test helpers; run, it prints the folder, for the shell scripts.
import { homedir } from "node:os";
import { join } from "node:path";
import { isMain } from "./is-main.mjs";

/** The cache folder: `$XDG_CACHE_HOME/pulumi-proxy`, or `~/.cache/pulumi-proxy`. */
export const cacheRoot = join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "pulumi-proxy");

if (isMain(import.meta.url)) console.log(cacheRoot);
