/**
 * plugin/schema.json, from which the SDKs of every language are generated, is what plugin/schema-build.ts makes of
 * the resources' descriptions (provider/schema/definitions.ts): an input or output added there and not to the schema fails
 * here. (The SDKs are held to the schema by test/e2e/sdks.test.ts, the TypeScript state types and the dynamic SDK to
 * the descriptions by the type check.)
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { schemaFileText } from "../../plugin/schema-build";
import { examplesPage } from "../../plugin/schema-examples";
import { PROXY_FLEET, PROXY_ORDER } from "../../provider/schema/definitions";
import { FLEET_OUTPUT_ONLY_PROPERTIES } from "../../provider/state/fleet-state";
import { OUTPUT_ONLY_PROPERTIES } from "../../provider/state/order-state";
import { REPO_ROOT } from "../helpers/pulumi";

const committed = readFileSync(join(REPO_ROOT, "plugin", "schema.json"), "utf8");
const schema = JSON.parse(committed) as { resources: Record<string, { inputProperties: object; properties: Record<string, { secret?: boolean }> }> };

describe("plugin/schema.json", () => {
  it("is what the resources' descriptions and examples make (run `npm run gen` after changing provider/schema/definitions.ts or plugin/examples/)", () => {
    expect(committed).toBe(schemaFileText(REPO_ROOT));
  });

  it("docs/examples.md is what plugin/examples/ makes (run `npm run gen` after changing an example)", () => {
    expect(readFileSync(join(REPO_ROOT, "docs", "examples.md"), "utf8")).toBe(examplesPage(REPO_ROOT));
  });

  it("shows every input and output of each resource, and only those, with credentials secret", () => {
    for (const [spec, outputs] of [
      [PROXY_ORDER, OUTPUT_ONLY_PROPERTIES],
      [PROXY_FLEET, FLEET_OUTPUT_ONLY_PROPERTIES],
    ] as const) {
      const resource = schema.resources[spec.token];
      expect(Object.keys(resource?.inputProperties ?? {}), spec.token).toEqual(Object.keys(spec.inputs));
      expect(Object.keys(resource?.properties ?? {}), spec.token).toEqual([...Object.keys(spec.inputs), ...outputs]);
      expect(resource?.properties.credentials?.secret, spec.token).toBe(true);
    }
  });
});
