/**
 * The ranges the descriptions state are the ranges the checks accept. A description (provider/schema/definitions.ts) is what
 * users read in the reference, the schema and every SDK; "(1s to 24h)" there must be what `check` lets through, so a
 * bound changed in one place fails here until the other follows.
 */
import { describe, expect, it } from "vitest";
import { RESOURCES } from "../../provider/schema/definitions";
import type { FieldSpec } from "../../provider/schema/fields";

/** Every input that has a check and states a range, with the range's two ends as written. */
const ranged = RESOURCES.flatMap((resource) =>
  Object.entries(resource.inputs as Record<string, FieldSpec>).flatMap(([name, field]) => {
    const range = /\((\w+) to (\w+)( characters)?\)/.exec(field.description);
    return field.check && range ? [{ input: `${resource.token.split(":").pop()}.${name}`, field, low: range[1]!, high: range[2]!, characters: range[3] !== undefined }] : [];
  }),
);

const accepts = (field: FieldSpec, value: unknown) => field.check?.safeParse(value).success;

/** Values just inside and just outside a range as written: a count of characters, a whole number, or a duration. */
function edges(low: string, high: string, characters: boolean, type: string): { inside: unknown[]; outside: unknown[] } {
  if (characters) return { inside: ["x".repeat(Number(low)), "x".repeat(Number(high))], outside: ["x".repeat(Number(high) + 1)] };
  if (type === "integer") return { inside: [Number(low), Number(high)], outside: [Number(low) - 1, Number(high) + 1] };
  // A duration: the units compose ("24h1s"), so one second past the upper end is written after it.
  return { inside: [low, high], outside: ["0s", `${high}1s`] };
}

describe("the ranges the inputs' descriptions state", () => {
  it("are found where the inputs are bounded (the test would otherwise check nothing)", () => {
    expect(ranged.map((r) => r.input).sort()).toEqual([
      "ProxyFleet.orders",
      "ProxyFleet.readyTimeout",
      "ProxyFleet.renewBefore",
      "ProxyFleet.replaceUnhealthy",
      "ProxyOrder.planId",
      "ProxyOrder.readyTimeout",
      "ProxyOrder.renewBefore",
    ]);
  });

  it.each(ranged)("$input: ($low to $high) is what its check accepts", ({ field, low, high, characters }) => {
    const { inside, outside } = edges(low, high, characters, field.type);
    for (const value of inside) expect(accepts(field, value), `accepts ${JSON.stringify(value).slice(0, 20)}`).toBe(true);
    for (const value of outside) expect(accepts(field, value), `refuses ${JSON.stringify(value).slice(0, 20)}`).toBe(false);
  });
});
