import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_CLIENT_OPTIONS } from "../../client/request";
import { CONFIG_KEYS } from "../../provider/config";
import { INPUT_DEFAULTS, MAX_FLEET_ORDERS } from "../../provider/inputs";

const readme = readFileSync(join(__dirname, "..", "..", "README.md"), "utf8");

/** The rows of the first table after a heading, as arrays of cells without backticks. */
function tableAfter(heading: string): string[][] {
  const start = readme.indexOf(heading);
  expect(start, `README has no heading "${heading}"`).toBeGreaterThanOrEqual(0);
  const lines = readme.slice(start).split("\n");
  const first = lines.findIndex((l) => l.startsWith("|"));
  const rows: string[][] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith("|")) break;
    rows.push(line.split("|").slice(1, -1).map((c) => c.trim().replace(/`/g, "")));
  }
  return rows;
}

describe("the README's tables match the code", () => {
  it("client options and their defaults", () => {
    const table = Object.fromEntries(tableAfter("### The API client").map(([name, value]) => [name, Number(value)]));
    expect(table).toEqual(DEFAULT_CLIENT_OPTIONS);
  });

  it("configuration keys and environment variables", () => {
    const rows = tableAfter("## Configuration").map(([key, env]) => [key, env]);
    expect(rows).toEqual(Object.values(CONFIG_KEYS).map(({ key, env }) => [key, env]));
  });

  it("ProxyOrder input defaults", () => {
    const rows = Object.fromEntries(tableAfter("### `ProxyOrder`").map(([name, , value]) => [name, value]));
    expect(rows.waitForReady).toBe(String(INPUT_DEFAULTS.waitForReady));
    expect(rows.readyTimeout).toBe(JSON.stringify(INPUT_DEFAULTS.readyTimeout));
  });

  it("ProxyFleet input defaults and the fleet's size limit", () => {
    const rows = Object.fromEntries(tableAfter("### `ProxyFleet`").map(([name, , value, description]) => [name, { value, description }]));
    expect(rows.waitForReady?.value).toBe(String(INPUT_DEFAULTS.waitForReady));
    expect(rows.readyTimeout?.value).toBe(JSON.stringify(INPUT_DEFAULTS.readyTimeout));
    expect(rows.orders?.description).toContain(`1 to ${MAX_FLEET_ORDERS}`);
  });
});
