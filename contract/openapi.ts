/**
 * The contract as an OpenAPI 3.1 document, written from the wire schemas of wire.ts (the ones the client parses with
 * and the sandbox answers by), the error table of errors.ts and the idempotency rule of idempotency.ts: nothing here
 * restates a field. `npm run gen` writes it to docs/openapi.json, a test fails when that file is not what this
 * makes, and the sandbox serves it at `/openapi.json`.
 */
import { z } from "zod";
import { ERROR_TABLE } from "./errors";
import { MAX_IDEMPOTENCY_KEY_LENGTH } from "./idempotency";
import { MAX_ORDER_ID_FILTER, MAX_PROXY_PAGE_SIZE } from "./proxy-list";
import { PROXY_TYPES } from "./states";
import { contractRequired, createOrderRequestWire, orderWire, problemDocumentWire, proxyPageWire, proxyWire, usageWire } from "./wire";

/** The revision of the assumed contract this document describes (the date it last changed). */
export const CONTRACT_REVISION = "2026-11-25";

/** Where every OpenAPI answer of the API is described: by method and path template, the statuses it may send. */
export const OPERATIONS = {
  "GET /v1/proxies": { success: [200], errors: [400, 401, 403, 429, 500, 502, 503, 504] },
  "POST /v1/orders": { success: [201, 200], errors: [400, 401, 402, 403, 404, 409, 422, 429, 500, 502, 503, 504] },
  "GET /v1/orders/{id}": { success: [200], errors: [401, 403, 404, 429, 500, 502, 503, 504] },
  "GET /v1/usage": { success: [200], errors: [401, 403, 429, 500, 502, 503, 504] },
} as const;

/** An operation's key in {@link OPERATIONS}. */
export type OperationKey = keyof typeof OPERATIONS;

/**
 * The wire schema of each 2xx body, by operation, with every field the contract requires required: what the sandbox's
 * answers are checked against (the client reads them more leniently).
 */
export const SUCCESS_BODIES: Readonly<Record<OperationKey, z.ZodType>> = {
  "GET /v1/proxies": proxyPageWire,
  "POST /v1/orders": contractRequired(orderWire),
  "GET /v1/orders/{id}": contractRequired(orderWire),
  "GET /v1/usage": usageWire,
};

/** The operation a request's method and concrete path belong to, if any. */
export function operationOf(method: string, path: string): OperationKey | undefined {
  const template = /^\/v1\/orders\/[^/]+$/.test(path) ? "/v1/orders/{id}" : path;
  const key = `${method.toUpperCase()} ${template}`;
  return key in OPERATIONS ? (key as OperationKey) : undefined;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** The records, as JSON Schema 2020-12 (OpenAPI 3.1's dialect), referring to each other by name. */
function componentSchemas(): Record<string, unknown> {
  const registry = z.registry<{ id: string }>();
  registry.add(proxyWire, { id: "Proxy" });
  registry.add(proxyPageWire, { id: "ProxyPage" });
  registry.add(orderWire, { id: "Order" });
  registry.add(usageWire, { id: "Usage" });
  registry.add(createOrderRequestWire, { id: "CreateOrderRequest" });
  registry.add(problemDocumentWire, { id: "Problem" });
  const { schemas } = z.toJSONSchema(registry, { target: "draft-2020-12", uri: (id) => `#/components/schemas/${id}` });
  const described: Record<string, string> = {
    Proxy:
      "A proxy assigned to the account. `ip`, `port`, `type` and `country` are the seed's fields and always sent; the rest may be absent. Clients keep fields they do not know. `type` is one of " +
      `${PROXY_TYPES.map((t) => `\`${t}\``).join(", ")}, or a value a client keeps as it is. \`username\` and \`password\` are credentials.`,
    ProxyPage:
      "One page of the account's proxies (those of `active` orders). A body with `data` alone (the seed's shape) is one complete page; otherwise `next_cursor` fetches the next page while `has_more` is true.",
    Order:
      "A purchase of one plan. `status` is `pending` or `provisioning` (keep polling), `active` (the proxies are ready), or the terminal `failed`, `cancelled` and `expired`; a client fails fast on any other. `status_reason` is set when `failed` or `cancelled`; `estimated_ready_at` is an optional hint while not terminal; `proxies` is present (possibly empty) once `active`. `expires_at` is not in the contract and read when sent.",
    Usage: "Usage of the current billing period. A `null` limit means unlimited; bytes are integers.",
    CreateOrderRequest: "The plan to buy. Unknown fields are refused with `400`.",
    Problem:
      "An RFC 9457 problem document with the contract's `code` and `request_id`. Clients also accept a plain-text body, `{ \"error\": { \"code\", \"message\" } }` and `{ \"detail\", \"code\" }`.",
  };
  return Object.fromEntries(
    Object.entries(schemas).map(([name, schema]) => {
      const { $schema: _dialect, $id: _id, ...rest } = schema as Record<string, unknown>;
      return [name, { description: described[name], ...rest }];
    }),
  );
}

const HEADERS = {
  RequestId: { description: "The request's id, sent with every answer; clients show it in errors.", required: true, schema: { type: "string" } },
  RetryAfter: {
    description: "Seconds to wait, or an HTTP date. Always sent with `429`; may be sent with `503` and as a polling hint on an order that is not terminal.",
    schema: { type: "string" },
  },
  RateLimitLimit: { description: "Optional hint: the requests the key may make in the current window.", schema: { type: "integer", minimum: 0 } },
  RateLimitRemaining: { description: "Optional hint: the requests left in the current window.", schema: { type: "integer", minimum: 0 } },
  RateLimitReset: { description: "Optional hint: seconds until the window resets.", schema: { type: "integer", minimum: 0 } },
  Location: { description: "The new order's path, `/v1/orders/{id}`.", schema: { type: "string" } },
  IdempotentReplayed: { description: "`true`: this answer replays an earlier purchase with the same key and body.", required: true, schema: { type: "string", enum: ["true"] } },
} as const;

const RATE_LIMIT_HEADERS = {
  "RateLimit-Limit": headerRef("RateLimitLimit"),
  "RateLimit-Remaining": headerRef("RateLimitRemaining"),
  "RateLimit-Reset": headerRef("RateLimitReset"),
};

/** The problem answer of one error status, with the codes the contract gives it. */
function errorResponse(status: number): Record<string, unknown> {
  const rows = ERROR_TABLE.filter((row) => row.status === status);
  const codes = rows.map((row) => `\`${row.code}\`: ${row.when}`).join("; ");
  const retryAfter = status === 429 ? { "Retry-After": headerRef("RetryAfterRequired") } : status === 503 ? { "Retry-After": headerRef("RetryAfter") } : {};
  return {
    description: codes || "An error.",
    headers: { "X-Request-Id": headerRef("RequestId"), ...RATE_LIMIT_HEADERS, ...retryAfter },
    content: { "application/problem+json": { schema: ref("Problem") } },
  };
}

function successResponse(description: string, schema: string, headers: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    description,
    headers: { "X-Request-Id": headerRef("RequestId"), ...RATE_LIMIT_HEADERS, ...headers },
    content: { "application/json": { schema: ref(schema) } },
  };
}

function errors(key: OperationKey): Record<string, unknown> {
  return Object.fromEntries(OPERATIONS[key].errors.map((status) => [String(status), { $ref: `#/components/responses/Error${status}` }]));
}

const STATUSES = [...new Set(Object.values(OPERATIONS).flatMap((operation) => operation.errors))].sort((a, b) => a - b);

/** `GET /v1/proxies`: a page of the account's proxies. */
function listProxiesOperation(): Record<string, unknown> {
  return {
    operationId: "listProxies",
    tags: ["proxies"],
    summary: "List the account's proxies",
    description: "The proxies of `active` orders, one page at a time. Right after an order becomes `active` its proxies may take a moment to appear.",
    parameters: [
      { name: "limit", in: "query", description: "Page size.", schema: { type: "integer", minimum: 1, maximum: MAX_PROXY_PAGE_SIZE, default: 100 } },
      { name: "cursor", in: "query", description: "Opaque cursor from the previous page's `next_cursor`.", schema: { type: "string" } },
      {
        name: "type",
        in: "query",
        description: `Only proxies of these types, comma separated: ${PROXY_TYPES.join(", ")}. An unknown type answers \`400\`.`,
        schema: { type: "string", pattern: `^(${PROXY_TYPES.join("|")})(,(${PROXY_TYPES.join("|")}))*$` },
      },
      { name: "country", in: "query", description: "Only proxies in these countries (ISO 3166-1 alpha-2), comma separated.", schema: { type: "string" } },
      {
        name: "order_id",
        in: "query",
        description: `Only the proxies of these orders: one id, or up to ${MAX_ORDER_ID_FILTER} ids comma separated.`,
        schema: { type: "string" },
      },
    ],
    responses: {
      "200": {
        ...successResponse("A page of proxies.", "ProxyPage"),
        links: { NextPage: { operationId: "listProxies", parameters: { cursor: "$response.body#/next_cursor" }, description: "The next page, while `has_more` is true." } },
      },
      ...errors("GET /v1/proxies"),
    },
  };
}

/** `POST /v1/orders`: a purchase, made once per idempotency key. */
function createOrderOperation(): Record<string, unknown> {
  return {
    operationId: "createOrder",
    tags: ["orders"],
    summary: "Buy a plan",
    description:
      "Places an order. The same `Idempotency-Key` with the same body within 24 hours answers the same order again (`200`, `Idempotent-Replayed: true`) and charges nothing; with another body, `422 idempotency_key_reused`; while the first request runs, `409 idempotency_key_in_use`. If the key's order was removed, the replay answers `404`. Without the header an order is still made.",
    parameters: [
      {
        name: "Idempotency-Key",
        in: "header",
        description: `1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} visible ASCII characters. Clients always send one.`,
        schema: { type: "string", minLength: 1, maxLength: MAX_IDEMPOTENCY_KEY_LENGTH, pattern: "^[\\x21-\\x7e]+$" },
      },
    ],
    requestBody: { required: true, content: { "application/json": { schema: ref("CreateOrderRequest") } } },
    responses: {
      "201": {
        ...successResponse("The new order, `pending`.", "Order", { Location: headerRef("LocationRequired") }),
        links: { GetOrder: { operationId: "getOrder", parameters: { id: "$response.body#/id" }, description: "Poll the new order until it is `active`." } },
      },
      "200": successResponse("An idempotent replay: the key's order, in its current state.", "Order", {
        "Idempotent-Replayed": headerRef("IdempotentReplayed"),
        Location: headerRef("Location"),
      }),
      ...errors("POST /v1/orders"),
    },
  };
}

/** `GET /v1/orders/{id}`: an order, polled until it is ready. */
function getOrderOperation(): Record<string, unknown> {
  return {
    operationId: "getOrder",
    tags: ["orders"],
    summary: "Read an order",
    description: "Readiness is learned by polling this. Right after a `201` a short burst of `404` is possible (read after write). Another account's order answers `404`.",
    parameters: [{ name: "id", in: "path", required: true, description: "The order id, such as `ord_...`.", schema: { type: "string", minLength: 1 } }],
    responses: {
      "200": successResponse("The order.", "Order", { "Retry-After": headerRef("RetryAfter") }),
      ...errors("GET /v1/orders/{id}"),
    },
  };
}

/** `GET /v1/usage`: the billing period's usage. */
function getUsageOperation(): Record<string, unknown> {
  return {
    operationId: "getUsage",
    tags: ["usage"],
    summary: "Read the period's usage",
    responses: { "200": successResponse("The usage.", "Usage"), ...errors("GET /v1/usage") },
  };
}

/** The OpenAPI 3.1 document of the contract. */
export function openApiDocument(): Record<string, unknown> {
  return {
    openapi: "3.1.0",
    info: {
      title: "Proxy Provisioning API (assumed contract)",
      version: CONTRACT_REVISION,
      description:
        "The Proxy Provisioning API as pulumi-proxy assumes it. The API is planned, not live: its one published description fixes the four endpoints, bearer authentication and the `/v1` prefix; everything else here is this project's decision (docs/api-contract.md says which seed line each fills). `pulumi-proxy check-api` tells whether a server keeps it.",
      license: { name: "Apache-2.0", identifier: "Apache-2.0" },
    },
    servers: [
      {
        url: "{baseUrl}",
        description: "The API's base URL, without `/v1` (the local sandbox by default).",
        variables: { baseUrl: { default: "http://127.0.0.1:8787" } },
      },
    ],
    security: [{ bearerAuth: [] }],
    tags: [
      { name: "proxies", description: "The account's proxies." },
      { name: "orders", description: "Purchases of plans." },
      { name: "usage", description: "The billing period's usage." },
    ],
    paths: {
      "/v1/proxies": { get: listProxiesOperation() },
      "/v1/orders": { post: createOrderOperation() },
      "/v1/orders/{id}": { get: getOrderOperation() },
      "/v1/usage": { get: getUsageOperation() },
    },
    components: {
      securitySchemes: { bearerAuth: { type: "http", scheme: "bearer", description: "`Authorization: Bearer <API key>` on every endpoint." } },
      headers: { ...HEADERS, RetryAfterRequired: { ...HEADERS.RetryAfter, required: true }, LocationRequired: { ...HEADERS.Location, required: true } },
      schemas: componentSchemas(),
      responses: Object.fromEntries(STATUSES.map((status) => [`Error${status}`, errorResponse(status)])),
    },
  };
}

/** The document as docs/openapi.json holds it. */
export function openApiText(): string {
  return `${JSON.stringify(openApiDocument(), null, 2)}\n`;
}
