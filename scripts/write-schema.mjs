#!/usr/bin/env node
// Writes plugin/schema.json from the resources' descriptions (provider/definitions.ts, via plugin/schema-build.ts in
// dist/, so run `npm run build` first; `npm run gen-sdk` does both, then generates the SDKs from the file).
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const { schemaFileText } = createRequire(import.meta.url)(join(root, "dist", "plugin", "schema-build.js"));
writeFileSync(join(root, "plugin", "schema.json"), schemaFileText());
console.log("write-schema: plugin/schema.json written from provider/definitions.ts");
