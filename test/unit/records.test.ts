/**
 * contract/records.ts, the records this package exposes, is what the wire schemas make (a field added to a schema and
 * not regenerated fails here, and wire.ts's type check fails too).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { recordTypesText } from "../../contract/records-build";
import { REPO_ROOT } from "../helpers/pulumi";

describe("contract/records.ts", () => {
  it("is what contract/wire.ts makes (run `npm run gen` after changing a wire schema)", () => {
    expect(readFileSync(join(REPO_ROOT, "contract", "records.ts"), "utf8")).toBe(recordTypesText());
  });

  it("names every field of the order with its description, in camelCase", () => {
    const order = recordTypesText().split("export interface Order {")[1]?.split("\n}")[0] ?? "";
    expect(order).toContain("/** RFC 3339 hint while not terminal. */\n  estimatedReadyAt?: string | null;");
    expect(order).toContain("statusReason?: StatusReason | null;");
    expect(order).toContain("proxies?: ProxyRecord[];");
  });
});
