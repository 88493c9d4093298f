#!/usr/bin/env node
// Rewrites the tables of docs/resources.md from the descriptions of provider/definitions.ts (via dist/, so run
// `npm run build` first; `npm run gen-reference` does both). A unit test fails when the committed tables are stale.
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { withReferenceTables } from "./lib/reference.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const definitions = createRequire(import.meta.url)(join(root, "dist", "provider", "definitions.js"));
const page = join(root, "docs", "resources.md");
writeFileSync(page, withReferenceTables(readFileSync(page, "utf8"), definitions));
console.log("write-reference: docs/resources.md's tables written from provider/definitions.ts");
