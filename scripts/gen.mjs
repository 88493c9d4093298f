#!/usr/bin/env node
// `npm run gen`: rewrites everything generated in this repository from its one source, in this order:
//   plugin/schema.json             from provider/schema/definitions.ts and plugin/examples/ (plugin/schema-build.ts)
//   docs/examples.md               from plugin/examples/ (plugin/schema-examples.ts)
//   dynamic-sdk/proxy-order.ts,
//   dynamic-sdk/proxy-fleet.ts     from provider/schema/definitions.ts (scripts/lib/dynamic-sdk.mjs)
//   docs/resources.md's tables     from provider/schema/definitions.ts (scripts/lib/reference.mjs)
//   contract/records.ts            from contract/wire.ts (contract/records-build.ts)
//   docs/openapi.json              from contract/ (contract/openapi.ts)
//   sdk/{nodejs,python,go,dotnet}  from plugin/schema.json (scripts/gen-sdk/run: the only step that needs Go)
// The sources are read as TypeScript (bundled in memory by esbuild), not from dist/, so a stale generated file that no
// longer compiles does not stop its own regeneration. `--no-sdks` leaves sdk/ alone (for a machine without Go). Each
// generated file has a test that fails when it is stale: the unit tests for all but sdk/, test/e2e/sdks.test.ts (with
// Go) for sdk/.
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { dynamicSdkFiles } from "./lib/dynamic-sdk.mjs";
import { withReferenceTables } from "./lib/reference.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** The modules generation reads, compiled from their TypeScript sources. */
async function sources() {
  const entry = [
    `export * as definitions from "./provider/schema/definitions";`,
    `export { schemaFileText } from "./plugin/schema-build";`,
    `export { examplesPage } from "./plugin/schema-examples";`,
    `export { openApiText } from "./contract/openapi";`,
    `export { recordTypesText } from "./contract/records-build";`,
  ].join("\n");
  const { outputFiles } = await build({
    stdin: { contents: entry, resolveDir: root, loader: "ts", sourcefile: "gen-entry.ts" },
    bundle: true,
    platform: "node",
    format: "cjs",
    packages: "external",
    write: false,
    logLevel: "error",
  });
  const module = { exports: {} };
  new Function("module", "exports", "require", outputFiles[0].text)(module, module.exports, createRequire(join(root, "package.json")));
  return module.exports;
}

const write = (path, text) => {
  writeFileSync(join(root, path), text);
  console.log(`gen: ${path}`);
};

const { definitions, schemaFileText, examplesPage, openApiText, recordTypesText } = await sources();
write("contract/records.ts", recordTypesText());
write("plugin/schema.json", schemaFileText(root));
write("docs/examples.md", examplesPage(root));
for (const [path, text] of Object.entries(dynamicSdkFiles(definitions))) write(path, text);
write("docs/resources.md", withReferenceTables(readFileSync(join(root, "docs", "resources.md"), "utf8"), definitions));
write("docs/openapi.json", openApiText());
if (process.argv.includes("--no-sdks")) {
  console.log("gen: sdk/ left as it is (--no-sdks); `npm run gen` with Go on the PATH writes it");
} else {
  const sdks = spawnSync(join(root, "scripts", "gen-sdk", "run"), [], { cwd: root, stdio: "inherit" });
  if (sdks.status !== 0) {
    console.error("gen: scripts/gen-sdk/run failed (above). It needs Go; `npm run gen -- --no-sdks` writes everything else.");
    process.exit(1);
  }
}
