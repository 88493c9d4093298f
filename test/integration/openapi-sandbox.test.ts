/**
 * The sandbox's answers, for every operation and every status it sends, validated against docs/openapi.json itself
 * (with a JSON Schema validator, not the zod schemas it is written from), and the document it serves.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import Ajv2020 from "ajv/dist/2020";
import { request } from "undici";
import { describe, expect, it } from "vitest";
import { SANDBOX_READ_ONLY_API_KEY } from "../../sandbox";
import { REPO_ROOT } from "../helpers/pulumi";
import { useSandbox } from "../helpers/sandbox";

type Json = Record<string, any>;
const document = JSON.parse(readFileSync(join(REPO_ROOT, "docs", "openapi.json"), "utf8")) as Json;
const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addSchema({ $id: "openapi", components: document.components });

// Provisioning outlasts the test's steps however slow the machine; the test moves the sandbox's clock past it.
const sandbox = useSandbox({ rateLimit: { requestsPerSecond: 1000, burst: 1000 }, provisioningMs: 30_000 });

const resolve = (node: Json): Json => (typeof node.$ref === "string" ? resolve(node.$ref.slice(2).split("/").reduce((at: Json, key: string) => at[key], document)) : node);

/** What in one answer departs from the document: its status, content type, required headers and body schema. */
function departures(method: string, path: string, answer: { status: number; headers: Json; body: unknown }): string[] {
  const template = /^\/v1\/orders\/[^/]+$/.test(path) ? "/v1/orders/{id}" : path;
  const operation = document.paths[template]?.[method.toLowerCase()];
  if (!operation) return [`${method} ${template} is not in the document`];
  const documented = operation.responses[String(answer.status)];
  if (!documented) return [`status ${answer.status} is not documented for ${method} ${template}`];
  const response = resolve(documented);
  const problems: string[] = [];
  for (const [name, header] of Object.entries(response.headers ?? {})) {
    if (resolve(header as Json).required && answer.headers[name.toLowerCase()] === undefined) problems.push(`missing header ${name}`);
  }
  const [mediaType, media] = Object.entries(response.content as Json)[0] as [string, Json];
  if (!String(answer.headers["content-type"]).startsWith(mediaType)) problems.push(`content type ${answer.headers["content-type"]}, not ${mediaType}`);
  const validate = ajv.compile({ $ref: `openapi${media.schema.$ref}` });
  if (!validate(answer.body)) problems.push(...(validate.errors ?? []).map((e) => `body${e.instancePath}: ${e.message}`));
  return problems;
}

const seen = new Set<string>();
async function call(method: string, path: string, options: { body?: string; headers?: Record<string, string>; key?: string | null } = {}) {
  const headers: Record<string, string> = { "content-type": "application/json", ...options.headers };
  if (options.key !== null) headers.authorization = `Bearer ${options.key ?? sandbox.current.apiKey}`;
  const res = await request(sandbox.current.url + path, { method: method as "GET", body: options.body, headers });
  const text = await res.body.text();
  const answer = { status: res.statusCode, headers: res.headers as Json, body: text ? JSON.parse(text) : undefined };
  expect(departures(method, path.split("?")[0] ?? path, answer), `${method} ${path} -> ${answer.status}`).toEqual([]);
  seen.add(`${method} ${path.split("?")[0]?.replace(/ord_[^/?]+/, "{id}")} ${answer.status}`);
  return answer;
}

const buy = (key: string, plan = "dc-us-5") => call("POST", "/v1/orders", { body: JSON.stringify({ plan_id: plan }), headers: { "idempotency-key": key } });

describe("the sandbox's answers, validated against docs/openapi.json", () => {
  it("serves the document at /openapi.json, without a key", async () => {
    const res = await request(`${sandbox.current.url}/openapi.json`);
    expect(await res.body.json()).toEqual(document);
  });

  it("every success answer of every operation", async () => {
    const made = await buy("oa-1");
    expect(made.status).toBe(201);
    expect((await buy("oa-1")).status).toBe(200);
    const id = made.body.id as string;
    expect((await call("GET", `/v1/orders/${id}`)).body.status).toMatch(/^(pending|provisioning)$/);
    sandbox.current.clock.advance(60_000);
    expect((await call("GET", `/v1/orders/${id}`)).body.status).toBe("active");
    await buy("oa-2");
    sandbox.current.clock.advance(60_000);
    const first = await call("GET", "/v1/proxies?limit=2");
    expect(first.body.has_more).toBe(true);
    await call("GET", `/v1/proxies?limit=2&cursor=${first.body.next_cursor}`);
    await call("GET", `/v1/proxies?type=datacenter,isp&country=US&order_id=${id}`);
    await call("GET", "/v1/usage");
  });

  it("every error the sandbox sends", async () => {
    await call("GET", "/v1/usage", { key: null });
    await call("GET", "/v1/usage", { key: "sk_wrong" });
    await call("POST", "/v1/orders", { body: '{"plan_id":"dc-us-5"}', key: SANDBOX_READ_ONLY_API_KEY, headers: { "idempotency-key": "oa-ro" } });
    await call("POST", "/v1/orders", { body: "{", headers: { "idempotency-key": "oa-bad" } });
    await call("POST", "/v1/orders", { body: '{"plan_id":"dc-us-5","extra":1}', headers: { "idempotency-key": "oa-extra" } });
    await call("GET", "/v1/proxies?limit=0");
    await call("GET", "/v1/proxies?type=satellite");
    await buy("oa-plan", "no-such-plan");
    await buy("oa-3");
    await buy("oa-3", "isp-de-1");
    await call("GET", "/v1/orders/ord_missing");
    const made = await buy("oa-4");
    sandbox.current.removeOrder(made.body.id);
    expect((await buy("oa-4")).status).toBe(404);
    sandbox.current.faults.delayMs = 200;
    const racing = await Promise.all([buy("oa-race"), buy("oa-race")]);
    expect(racing.map((r) => r.status).sort()).toEqual([201, 409]);
    sandbox.current.faults.delayMs = 0;
    sandbox.current.state.balanceCents = 0;
    expect((await buy("oa-poor")).status).toBe(402);
  });

  it("429 and 5xx answers", async () => {
    for (const status of [429, 500, 502, 503, 504]) {
      sandbox.current.faults.failNext({ count: 1, status, method: "GET", pathPrefix: "/v1/usage", retryAfterSeconds: 1 });
      expect((await call("GET", "/v1/usage")).status).toBe(status);
    }
  });

  it("covered every operation's documented success", () => {
    for (const answer of ["POST /v1/orders 201", "POST /v1/orders 200", "GET /v1/orders/{id} 200", "GET /v1/proxies 200", "GET /v1/usage 200"]) {
      expect([...seen]).toContain(answer);
    }
  });
});
