#!/usr/bin/env node
// Writes docs/openapi.json, the contract as an OpenAPI 3.1 document, from the wire schemas (contract/openapi.ts, via
// dist/, so run `npm run build` first; `npm run gen-openapi` does both). A unit test fails when the file is stale.
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const { openApiText } = createRequire(import.meta.url)(join(root, "dist", "contract", "openapi.js"));
writeFileSync(join(root, "docs", "openapi.json"), openApiText());
console.log("write-openapi: docs/openapi.json written from contract/");
