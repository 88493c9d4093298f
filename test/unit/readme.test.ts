import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_CLIENT_OPTIONS } from "../../client/request";
import { CONFIG_KEYS } from "../../provider/core/config";
import * as definitions from "../../provider/schema/definitions";
import { INPUT_DEFAULTS, MAX_FLEET_ORDERS } from "../../provider/schema/inputs";
import { REPO_ROOT } from "../helpers/pulumi";

const read = (path: string) => readFileSync(join(__dirname, "..", "..", path), "utf8");
const pages: Record<string, string> = {
  "README.md": read("README.md"),
  "docs/installation-configuration.md": read("docs/installation-configuration.md"),
  "docs/resources.md": read("docs/resources.md"),
  "docs/api-client.md": read("docs/api-client.md"),
};

/** The rows of the first table (or the `nth`, from 0) after a heading of a page, as arrays of cells without backticks. */
function tableAfter(heading: string, page = "README.md", nth = 0): string[][] {
  const text = pages[page] ?? "";
  const start = text.indexOf(heading);
  expect(start, `${page} has no heading "${heading}"`).toBeGreaterThanOrEqual(0);
  const lines = text.slice(start).split("\n");
  let first = lines.findIndex((l) => l.startsWith("|"));
  for (let i = 0; i < nth; i++) {
    const end = lines.findIndex((l, at) => at > first && !l.startsWith("|"));
    first = lines.findIndex((l, at) => at > end && l.startsWith("|"));
  }
  expect(first, `${page} has no table ${nth + 1} after "${heading}"`).toBeGreaterThanOrEqual(0);
  const rows: string[][] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith("|")) break;
    rows.push(line.split("|").slice(1, -1).map((c) => c.trim().replace(/`/g, "")));
  }
  return rows;
}

describe("the tables of the README and the reference match the code", () => {
  it("client options and their defaults", () => {
    const table = Object.fromEntries(tableAfter("# The API client", "docs/api-client.md").map(([name, value]) => [name, Number(value)]));
    expect(table).toEqual(DEFAULT_CLIENT_OPTIONS);
  });

  it("configuration keys and environment variables, in the README and the Registry's configuration page", () => {
    for (const page of ["README.md", "docs/installation-configuration.md"]) {
      const rows = tableAfter("## Configuration", page).map(([key, env]) => [key, env]);
      // Then the proxy variables the client honours (client/dispatcher.ts), which have no config key.
      const proxyRow = ["none", page === "README.md" ? "HTTPS_PROXY (HTTP_PROXY), NO_PROXY" : "HTTPS_PROXY (or HTTP_PROXY), NO_PROXY"];
      expect(rows, page).toEqual([...Object.values(CONFIG_KEYS).map(({ key, env }) => [key, env]), proxyRow]);
    }
  });

  it("ProxyOrder input defaults", () => {
    const rows = Object.fromEntries(tableAfter("## `ProxyOrder`", "docs/resources.md").map(([name, , value]) => [name, value]));
    expect(rows.waitForReady).toBe(String(INPUT_DEFAULTS.waitForReady));
    expect(rows.readyTimeout).toBe(JSON.stringify(INPUT_DEFAULTS.readyTimeout));
  });

  it("ProxyFleet input defaults and the fleet's size limit", () => {
    const rows = Object.fromEntries(tableAfter("## `ProxyFleet`", "docs/resources.md").map(([name, , value, description]) => [name, { value, description }]));
    expect(rows.waitForReady?.value).toBe(String(INPUT_DEFAULTS.waitForReady));
    expect(rows.readyTimeout?.value).toBe(JSON.stringify(INPUT_DEFAULTS.readyTimeout));
    expect(rows.orders?.description).toContain(`1 to ${MAX_FLEET_ORDERS}`);
  });

  it("the reference's tables are the definitions', and there is one for every part of every resource, function and object type", async () => {
    const { withReferenceTables } = (await import(join(REPO_ROOT, "scripts", "lib", "reference.mjs"))) as {
      withReferenceTables: (page: string, definitions: object) => string;
    };
    const page = pages["docs/resources.md"] ?? "";
    // The committed tables are what `npm run gen` makes now.
    expect(page).toBe(withReferenceTables(page, definitions));
    const marked = [...page.matchAll(/<!-- reference: (\w+) (\w+) -->/g)].map(([, name, part]) => `${name} ${part}`).sort();
    const described = [
      ...[...definitions.RESOURCES, ...definitions.FUNCTIONS].flatMap((spec) =>
        (["inputs", "outputs"] as const).filter((part) => part in spec).map((part) => `${spec.token.split(":").pop()} ${part}`),
      ),
      // An object type shown under another's name (FleetProxy is a ProxyInfo in the schema) has no table of its own.
      ...Object.entries(definitions.OBJECT_TYPES).filter(([name, type]) => type.token.endsWith(`:${name}`)).map(([name]) => `${name} properties`),
    ].sort();
    expect(marked).toEqual(described);
  });
});
