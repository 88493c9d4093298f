/**
 * docs/openapi.json is the contract as written in contract/ (a schema changed there and not regenerated fails here),
 * and it passes Redocly's strictest built-in ruleset.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { describe, expect, it } from "vitest";
import { openApiDocument, openApiText } from "../../contract/openapi";
import { orderWire, readWire } from "../../contract/wire";
import { contractProblems } from "../../sandbox/answer-check";
import { REPO_ROOT } from "../helpers/pulumi";

const committed = readFileSync(join(REPO_ROOT, "docs", "openapi.json"), "utf8");

describe("docs/openapi.json", () => {
  it("is what contract/ makes (run `npm run gen` after changing a wire schema)", () => {
    expect(committed).toBe(openApiText());
  });

  it("has the order record's every field, as its wire schema declares them", () => {
    const schemas = (document: Record<string, unknown>) => (document.components as { schemas: Record<string, { properties: object }> }).schemas;
    expect(Object.keys(schemas(openApiDocument()).Order?.properties ?? {})).toEqual(Object.keys(orderWire.shape));
  });

  it("passes the OpenAPI linter (Redocly, recommended-strict) without a warning", async () => {
    const config = await createConfig({ extends: ["recommended-strict"] });
    const problems = await lintFromString({ source: committed, absoluteRef: join(REPO_ROOT, "docs", "openapi.json"), config });
    expect(problems.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
  });

  it("documents every header the contract names, the problem format and each error status", () => {
    const text = committed;
    for (const header of ["Idempotency-Key", "Idempotent-Replayed", "Location", "Retry-After", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "X-Request-Id"]) {
      expect(text, header).toContain(`"${header}"`);
    }
    expect(text).toContain("application/problem+json");
    for (const code of ["invalid_request", "unauthenticated", "insufficient_balance", "idempotency_key_in_use", "idempotency_key_reused", "plan_not_found", "rate_limited"]) {
      expect(text, code).toContain(code);
    }
  });
});

describe("the sandbox's answer check", () => {
  const ok = { "x-request-id": "req_1", "content-type": "application/json" };
  const at = "2026-11-29T00:00:00.000Z";
  const order = { id: "ord_1", plan_id: "dc-us-5", status: "pending", status_reason: null, created_at: at, updated_at: at, ready_at: null };
  it("passes an answer that keeps the contract", () => {
    expect(contractProblems("GET", "/v1/usage", {
      status: 200,
      headers: ok,
      body: { period: { start: "a", end: "b" }, as_of: "c", bandwidth: { used_bytes: 1, limit_bytes: null }, requests: { used: 0, limit: null } },
    })).toEqual([]);
  });

  it("holds an order to every field the contract requires, which the client reads without", () => {
    for (const field of ["status_reason", "created_at", "updated_at", "ready_at"]) {
      const { [field]: _left, ...body } = order as Record<string, unknown>;
      expect(contractProblems("GET", "/v1/orders/ord_1", { status: 200, headers: ok, body }), field).toEqual([
        `body: ${field}: Invalid input: expected ${field === "status_reason" ? "object" : "string"}, received undefined`,
      ]);
      expect(readWire(orderWire, body).ok, field).toBe(true);
    }
    expect(contractProblems("GET", "/v1/orders/ord_1", { status: 200, headers: ok, body: order })).toEqual([]);
  });

  it("names what an answer breaks: a missing field, an undocumented status, a missing header", () => {
    expect(contractProblems("GET", "/v1/orders/ord_1", { status: 200, headers: ok, body: { ...order, plan_id: undefined } })).toEqual([
      "body: plan_id: Invalid input: expected string, received undefined",
    ]);
    expect(contractProblems("GET", "/v1/usage", { status: 402, headers: { ...ok, "content-type": "application/problem+json" }, body: {} })[0]).toBe(
      "status 402 is not documented for GET /v1/usage",
    );
    expect(contractProblems("POST", "/v1/orders", { status: 201, headers: { "content-type": "application/json" }, body: order })).toEqual([
      "no X-Request-Id header",
      "a 201 without Location",
    ]);
  });

  it("holds the sandbox to the contract's forms, which a client forgives in a real API's answers", () => {
    const body = { data: { ...order, id: 1001, created_at: 1_800_000_000 } };
    expect(readWire(orderWire, body).ok).toBe(true);
    expect(contractProblems("GET", "/v1/orders/1001", { status: 200, headers: ok, body })).toEqual([
      "body in forms the contract does not name: the record inside an envelope, `id` as a number, `created_at` as a number",
    ]);
  });
});
