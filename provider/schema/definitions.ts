/**
 * Each resource and function of the provider, described once: its inputs (with their defaults, checks and whether a
 * change replaces), its outputs, which are secret, and what each means. The state types (order-state.ts,
 * fleet-state.ts), the checks, the diff's field lists, the dynamic SDK's classes, the plugin's schema and the
 * reference tables are derived from here (`npm run gen` writes the generated ones); the descriptions are the schema's,
 * which the SDKs of every language carry.
 *
 * To add an input: add it here and run `npm run gen`. To add an output: add it here (to `ORDER_FIELDS` when a fleet's
 * members show it too), compute it where the type checker then points (`orderFields` or `toOutputs` in order-state.ts,
 * `toFleetOutputs` in fleet-state.ts), and run `npm run gen`.
 */
import type { Order, ProxyRecord, StatusReason as ContractStatusReason, Usage } from "../../contract";
import type { HealthCheckInput, HealthOutput } from "./health-input";
import type { FunctionSpec, ObjectTypeSpec, ResourceSpec, Same, ShapeOf } from "./fields";
import { INPUT_CHECKS, INPUT_DEFAULTS } from "./inputs";

/** A proxy, as every resource and function shows it. */
const PROXY_INFO = {
  token: "proxy:index:ProxyInfo",
  description: "A proxy, without its credentials.",
  properties: {
    ip: { type: "string", description: "IPv4 or IPv6 address." },
    port: { type: "integer", description: "Port, 1 to 65535." },
    type: { type: "string", description: "`datacenter`, `isp`, `residential`, `mobile`, or a value this version does not know." },
    country: { type: "string", description: "ISO 3166-1 alpha-2 country code, such as `US`." },
    id: { type: "string", presence: "optional", description: "Stable id of the proxy." },
    orderId: { type: "string", presence: "optional", description: "The order that provisioned it." },
    protocol: { type: "string", presence: "optional", description: "`http` or `socks5`." },
    city: { type: "string", presence: "optional", description: "City of the proxy." },
    expiresAt: { type: "string", presence: "optional", description: "RFC 3339 time the proxy expires." },
  },
} as const;

/**
 * What a ProxyOrder and each member of a fleet show of their order: computed from the API's order in one place
 * (provider/state/order-state.ts's `orderFields`), so a field added here is computed once for both.
 */
export const ORDER_FIELDS = {
  orderId: { type: "string", description: "The order id, such as `ord_...` (a ProxyOrder's resource id too)." },
  status: {
    type: "string",
    description: "`pending`, `provisioning`, `active`, `failed`, `cancelled` or `expired`, as of the last create, update or refresh.",
  },
  statusReason: { type: "StatusReason", presence: "nullable", description: "Why the order failed or was cancelled, when it did." },
  createdAt: { type: "string", presence: "nullable", description: "When the order was placed (RFC 3339)." },
  readyAt: { type: "string", presence: "nullable", description: "When the order became active (RFC 3339)." },
  expiresAt: {
    type: "string",
    presence: "nullable",
    description:
      "When the order expires (RFC 3339): the earliest expiry of the order and its proxies, as of the last create, update or refresh; null when the API reported none.",
  },
  purchaseKey: {
    type: "string",
    presence: "nullable",
    description:
      "The idempotency key the order was bought with (a ProxyOrder's differs from `idempotencyKey` after a re-purchase); null for an adopted or imported order.",
  },
  apiBaseUrl: {
    type: "string",
    presence: "optional",
    description:
      "The API the order was bought from (or adopted or imported at): its base URL. An order is never read, renewed or dropped through another API; after `proxy:baseUrl` changes, preview and up name it and say how to go on (docs/going-live.md). Absent for an order an earlier build of this package recorded, until a refresh or up finds it at the configured API.",
  },
  apiKeyFingerprint: {
    type: "string",
    presence: "optional",
    description:
      "A one-way fingerprint of the API key the order was bought with (never the key). A `404` from a key that is not this one drops the order from the state only when that key still sees another order of the same key, that is, the same account.",
  },
} as const;

/** Credentials of one proxy, as every resource and function shows them. */
const PROXY_CREDENTIAL = {
  token: "proxy:index:ProxyCredential",
  description:
    "Credentials of one proxy: always its `ip` and `port`; `username` and `password` only when the API sent them. A proxy that admits its clients by their IP (allow-listed) has neither, and its credentials are `{ ip, port }`.",
  properties: {
    ip: { type: "string", description: "IPv4 or IPv6 address of the proxy." },
    port: { type: "integer", description: "Port of the proxy." },
    username: { type: "string", presence: "optional", description: "Proxy user name; absent for a proxy allow-listed by IP." },
    password: { type: "string", presence: "optional", description: "Proxy password; absent for a proxy allow-listed by IP." },
  },
} as const;

/** How a resource checks its proxies: the `healthCheck` input. */
const HEALTH_CHECK = {
  token: "proxy:index:HealthCheck",
  description: "How a resource checks its proxies through themselves (docs/checking-proxies.md).",
  properties: {
    target: {
      type: "string",
      description:
        "The URL requested through each proxy, `http://` or `https://`. One that answers with the caller's address (as JSON `{\"ip\": ...}` or the bare address) also gives each proxy's `exitIp`; one that names the caller's country too (`{\"ip\": ..., \"country\": \"US\"}`, `countryCode`, `country_code`) holds each proxy to the country it was sold for.",
    },
    timeout: {
      type: "string",
      presence: "optional",
      description: "The most one proxy's check takes, connection to answer, such as `10s` (1s to 5m). Defaults to `10s`.",
    },
    minHealthy: {
      type: "string",
      presence: "optional",
      description:
        "The fewest proxies that must answer: a count such as `17`, or a share of the proxies such as `85%`. Below it, create and update fail naming the proxies that did not answer, and keep every order in the state. Unset: the check is reported and fails nothing.",
    },
    concurrency: { type: "integer", presence: "optional", description: "The most proxies checked at once, 1 to 500. Defaults to 50." },
  },
} as const;

/** One proxy's last check through itself: health/'s result, as resources and getProxyHealth show it. */
const PROXY_HEALTH = {
  token: "proxy:index:ProxyHealth",
  description: "One proxy's check through itself: whether the target answered through it, how fast, and from which address. Never holds a credential.",
  properties: {
    ip: { type: "string", description: "Address of the proxy." },
    port: { type: "integer", description: "Port of the proxy." },
    id: { type: "string", presence: "optional", description: "Id of the proxy, when the API gave one." },
    orderId: { type: "string", presence: "optional", description: "The order the proxy belongs to." },
    healthy: {
      type: "boolean",
      description: "True when the target answered through the proxy with a status below 400, and from the proxy's country when the target names one.",
    },
    latencyMs: {
      type: "integer",
      presence: "optional",
      description: "Milliseconds from the start of the check (the connection to the proxy) to the target's answer; absent when it did not answer.",
    },
    targetStatus: { type: "integer", presence: "optional", description: "The HTTP status the target answered through the proxy." },
    exitIp: {
      type: "string",
      presence: "optional",
      description: "The address the target saw the request come from, when the target reports it (a URL that echoes the caller's address).",
    },
    exitCountry: {
      type: "string",
      presence: "optional",
      description: "The country the target says the request came from (ISO 3166-1 alpha-2), when it names one.",
    },
    failure: {
      type: "string",
      presence: "optional",
      description:
        "Why the check failed: `refused` (nothing listens, or a firewall said no), `timeout`, `closed` (the proxy closed the connection without answering), `credentials_rejected` (`407` or `401`, or SOCKS5's authentication failure; or credentials asked for where the record has none), `target_unreachable` (the proxy could not reach the target), `target_status` (the target answered 400 or more), `wrong_country` (the target named a country other than the proxy's), `protocol_error` (the proxy speaks another protocol than its record's) or `unsupported_protocol`.",
    },
    message: { type: "string", presence: "optional", description: "What happened, for people." },
  },
} as const;

/** A check of many proxies: every result and how many passed. */
const HEALTH_REPORT = {
  token: "proxy:index:HealthReport",
  description: "The proxies checked through themselves: a summary and each proxy's result.",
  properties: {
    target: { type: "string", description: "The URL requested through each proxy." },
    checkedAt: { type: "string", description: "When the check began (RFC 3339)." },
    healthy: { type: "integer", description: "How many proxies answered." },
    total: { type: "integer", description: "How many proxies were checked." },
    results: { type: "ProxyHealth[]", description: "Each proxy's result, in the order of the proxies." },
  },
} as const;

/** The object types that properties use, by the name a field's `type` gives. */
export const OBJECT_TYPES = {
  StatusReason: {
    token: "proxy:index:StatusReason",
    description: "Why an order failed or was cancelled.",
    properties: {
      code: { type: "string", presence: "optional", description: "A stable code, such as `out_of_stock`." },
      message: { type: "string", presence: "optional", description: "A message for people." },
    },
  },
  ProxyInfo: PROXY_INFO,
  ProxyCredential: PROXY_CREDENTIAL,
  HealthCheck: HEALTH_CHECK,
  ProxyHealth: PROXY_HEALTH,
  HealthReport: HEALTH_REPORT,
  UsagePeriod: {
    token: "proxy:index:UsagePeriod",
    description: "The current billing period.",
    properties: {
      start: { type: "string", description: "RFC 3339." },
      end: { type: "string", description: "RFC 3339." },
    },
  },
  BandwidthUsage: {
    token: "proxy:index:BandwidthUsage",
    description: "Bandwidth used in the period.",
    properties: {
      usedBytes: { type: "number", description: "Bytes used." },
      limitBytes: { type: "number", presence: "nullable", description: "The limit in bytes; null when unlimited." },
    },
  },
  RequestUsage: {
    token: "proxy:index:RequestUsage",
    description: "Requests made in the period.",
    properties: {
      used: { type: "number", description: "Requests made." },
      limit: { type: "number", presence: "nullable", description: "The limit; null when unlimited." },
    },
  },
  FleetMember: {
    token: "proxy:index:FleetMember",
    description: "One order of a fleet, in the slot it fills.",
    properties: {
      slot: { type: "integer", description: "The member's slot, 0 to `orders` - 1: its purchase key is derived from it." },
      ...ORDER_FIELDS,
    },
  },
  /** A proxy of a fleet: a ProxyInfo in the schema, whose `orderId` is always set. */
  FleetProxy: PROXY_INFO,
  FleetCredential: {
    token: "proxy:index:FleetCredential",
    description: "Credentials of one proxy of a fleet.",
    properties: {
      orderId: { type: "string", description: "The order the proxy belongs to." },
      ...PROXY_CREDENTIAL.properties,
    },
  },
} as const satisfies Readonly<Record<string, ObjectTypeSpec>>;

/** The name a field's `type` gives an object type. */
export type ObjectTypeName = keyof typeof OBJECT_TYPES;

/** The ProxyOrder resource. */
export const PROXY_ORDER = {
  token: "proxy:index:ProxyOrder",
  description:
    "A purchase of one proxy plan.\n\nCreating it buys the plan and (by default) waits until its proxies are ready. The API cannot cancel orders, so deleting it only stops tracking the order: the purchase stays active.",
  importing: "`pulumi import proxy:index:ProxyOrder <name> <order id>` tracks an existing order.",
  inputs: {
    planId: {
      type: "string",
      replaces: true,
      check: INPUT_CHECKS.planId,
      description: "The plan to buy, such as `dc-us-5` (1 to 128 characters). Changing it buys a new order (a replacement).",
    },
    waitForReady: {
      type: "boolean",
      presence: "defaulted",
      default: INPUT_DEFAULTS.waitForReady,
      check: INPUT_CHECKS.waitForReady,
      description:
        "Wait until the order is `active` and its proxies are assigned. With false, create returns once the order is placed, with the status the API gave it (usually `pending`). Defaults to true.",
    },
    readyTimeout: {
      type: "string",
      presence: "defaulted",
      default: INPUT_DEFAULTS.readyTimeout,
      check: INPUT_CHECKS.readyTimeout,
      description:
        "How long create waits for the order, such as `20m` or `1h30m` (1s to 24h). Through the plugin, `customTimeouts.create` (and `.update`), when set, take its place; they do not reach the dynamic provider, where this is the only deadline. On timeout the order is kept in the state and the next `pulumi up` resumes waiting. Defaults to `20m`.",
    },
    idempotencyKey: {
      type: "string",
      presence: "defaulted",
      check: INPUT_CHECKS.idempotencyKey,
      description:
        "Idempotency key of the purchase. Defaults to a key derived from the project, stack, resource name and plan, so that running `pulumi up` again never buys twice.",
    },
    adoptOrderId: {
      type: "string",
      presence: "optional",
      check: INPUT_CHECKS.adoptOrderId,
      description:
        "The id of an order that already exists (`ord_...`), to track it instead of buying one, for example after a lost state or a moved resource. Create reads the order, checks that it is for `planId`, and waits for it like a purchase; changing it to another order replaces the resource, and removing it later is an update in place that calls nothing. Through the plugin, `pulumi import` does the same for a new resource; dynamic resources cannot be imported, so with the dynamic provider this is the way back.",
    },
    renewBefore: {
      type: "string",
      presence: "optional",
      check: INPUT_CHECKS.renewBefore,
      description:
        "Renew the order this long before it expires, such as `7d`, `36h` or `2d12h` (1s to 365d). Once the order's `expiresAt` is that close, the preview plans a replacement and `pulumi up` buys a new order (new proxies: the API cannot extend one), waits for it, and only then stops tracking the old one. It must be shorter than the plan's lifetime. Unset (the default), nothing is renewed, since a renewal is a purchase; refresh and preview warn 7 days before expiry.",
    },
    healthCheck: {
      type: "HealthCheck",
      presence: "optional",
      check: INPUT_CHECKS.healthCheck,
      description:
        "Check the proxies through themselves once they are ready: on create, on update and on every refresh (docs/checking-proxies.md). The result is the `health` output; with `minHealthy`, create and update fail below it, and the orders stay in the state. The check runs from where Pulumi runs. Unset (the default): no check.",
    },
  },
  outputs: {
    ...ORDER_FIELDS,
    proxies: { type: "ProxyInfo[]", description: "The proxies this order provisioned, without their credentials." },
    credentials: {
      type: "ProxyCredential[]",
      secret: true,
      description: "Credentials of the proxies, in the same order as `proxies`. Always secret.",
    },
    health: {
      type: "HealthReport",
      presence: "nullable",
      description:
        "The last check of the proxies through themselves (with `healthCheck`): how many answered, and each proxy's result. Null without `healthCheck`, or before the order is active.",
    },
  },
} as const satisfies ResourceSpec<ObjectTypeName>;

/** The ProxyFleet resource. */
export const PROXY_FLEET = {
  token: "proxy:index:ProxyFleet",
  description:
    "A fleet of orders of one plan, as one resource.\n\nIt buys its members together, in the time the API's rate limit allows rather than one of the engine's `--parallel` slots per order, and changes only the members that must change: new slots buy, a failed, cancelled, expired or due member is replaced alone. The API cannot cancel orders, so deleting it, or lowering `orders`, only stops tracking them.",
  importing: "`pulumi import proxy:index:ProxyFleet <name> ord_a,ord_b,...` tracks existing orders.",
  inputs: {
    planId: {
      type: "string",
      replaces: true,
      check: INPUT_CHECKS.planId,
      description: "The plan every member buys, such as `dc-us-5`. Changing it replaces the fleet (new purchases); the old orders stay with the account.",
    },
    orders: {
      type: "integer",
      check: INPUT_CHECKS.orders,
      description:
        "How many orders of the plan the fleet holds (1 to 1000). Raising it buys only the new members; lowering it stops tracking the highest slots, whose orders stay with the account.",
    },
    waitForReady: {
      type: "boolean",
      presence: "defaulted",
      default: INPUT_DEFAULTS.waitForReady,
      check: INPUT_CHECKS.waitForReady,
      description: "Wait until every member is `active`. Defaults to true.",
    },
    readyTimeout: {
      type: "string",
      presence: "defaulted",
      default: INPUT_DEFAULTS.readyTimeout,
      check: INPUT_CHECKS.readyTimeout,
      description:
        "How long create and update wait for the members, together, such as `20m` (1s to 24h). Through the plugin, `customTimeouts`, when set, take its place; they do not reach the dynamic provider. On timeout the fleet is recorded with what it holds and the next `pulumi up` resumes it. Defaults to `20m`.",
    },
    renewBefore: {
      type: "string",
      presence: "optional",
      check: INPUT_CHECKS.renewBefore,
      description:
        "Renew each member this long before it expires, such as `7d`, `36h` or `2d12h` (1s to 365d): a member inside the window is replaced alone, by a new order (new proxies). Unset (the default), nothing is renewed.",
    },
    idempotencyKey: {
      type: "string",
      presence: "defaulted",
      check: INPUT_CHECKS.idempotencyKey,
      description:
        "The fleet's identity, from which each member's idempotency key is derived with its slot. Defaults to a key derived from the project, stack, resource name and plan.",
    },
    healthCheck: {
      type: "HealthCheck",
      presence: "optional",
      check: INPUT_CHECKS.healthCheck,
      description:
        "Check the proxies through themselves once the members are ready: on create, on update and on every refresh (docs/checking-proxies.md). The result is the `health` output; with `minHealthy`, create and update fail below it, and the orders stay in the state. The check runs from where Pulumi runs. Unset (the default): no check.",
    },
    replaceUnhealthy: {
      type: "integer",
      presence: "optional",
      check: INPUT_CHECKS.replaceUnhealthy,
      description:
        "Replace members whose proxies failed the last check (with `healthCheck`), at most this many per `pulumi up` (1 to 1000), as an auto-scaling group replaces an unhealthy instance: each buys a new order (new proxies) with a key derived from the member, and the old order stops being tracked (it stays with the account). The last check is the one of the last refresh or up: run `pulumi up --refresh` to replace what fails now. Unset (the default): nothing is replaced for its health.",
    },
  },
  outputs: {
    members: { type: "FleetMember[]", description: "Every member: its slot, order id, status and expiry." },
    retiring: {
      type: "FleetMember[]",
      description: "Orders being renewed whose successor is not ready yet: still tracked, their proxies still listed.",
    },
    proxies: { type: "FleetProxy[]", description: "Every proxy of the fleet, flattened, each with its `orderId`; no credentials." },
    credentials: {
      type: "FleetCredential[]",
      secret: true,
      description: "Credentials of the proxies, in the same order as `proxies`. Always secret.",
    },
    expiresAt: { type: "string", presence: "nullable", description: "The earliest expiry of the fleet's active members (RFC 3339)." },
    health: {
      type: "HealthReport",
      presence: "nullable",
      description:
        "The last check of the active members' proxies through themselves (with `healthCheck`; orders being renewed are not checked): how many answered, and each proxy's result. Null without `healthCheck`, or before any member is active.",
    },
  },
} as const satisfies ResourceSpec<ObjectTypeName>;

/** The filters of getProxies, which getProxyHealth takes too. */
const PROXY_FILTERS = {
  type: {
    type: "string",
    presence: "optional",
    description: "Only proxies of this type; several types separated by commas (the dynamic provider's functions also take a list).",
  },
  country: {
    type: "string",
    presence: "optional",
    description:
      "Only proxies in this country (ISO 3166-1 alpha-2); several separated by commas (the dynamic provider's functions also take a list).",
  },
  orderId: { type: "string", presence: "optional", description: "Only proxies provisioned by this order." },
  expiresBefore: {
    type: "string",
    presence: "optional",
    description:
      "Only proxies that expire before this time (RFC 3339, such as `2026-12-01T00:00:00Z`); proxies with no known expiry are left out. Filtered by the provider: the API has no such query.",
  },
} as const;

/** The getProxies function. Its argument checks are the plugin's (provider/functions.ts). */
export const GET_PROXIES = {
  token: "proxy:index:getProxies",
  description: "Lists the proxies assigned to the account (`GET /v1/proxies`, all pages).",
  inputs: {
    ...PROXY_FILTERS,
    includeCredentials: {
      type: "boolean",
      presence: "optional",
      description: "Return the proxies' credentials too, as a secret. Defaults to false.",
    },
  },
  outputs: {
    proxies: { type: "ProxyInfo[]", description: "Every matching proxy, without credentials." },
    credentials: {
      type: "ProxyCredential[]",
      secret: true,
      description: "Credentials in the same order as `proxies`; empty unless `includeCredentials` is true.",
    },
  },
} as const satisfies FunctionSpec<ObjectTypeName>;

/** The getProxyHealth function. Its argument checks are provider/functions.ts's. */
export const GET_PROXY_HEALTH = {
  token: "proxy:index:getProxyHealth",
  description:
    "Checks proxies through themselves: connects through each with its credentials (HTTP `CONNECT` or SOCKS5) to `target`, from where Pulumi runs. Checks the proxies of the orders named, or the account's proxies that match the filters of getProxies.",
  inputs: {
    target: HEALTH_CHECK.properties.target,
    orderIds: {
      type: "string[]",
      presence: "optional",
      description: "Only the proxies of these orders: an order's `orderId`, or every `orderId` of a fleet's `members`.",
    },
    ...PROXY_FILTERS,
    timeout: HEALTH_CHECK.properties.timeout,
    concurrency: HEALTH_CHECK.properties.concurrency,
  },
  outputs: HEALTH_REPORT.properties,
} as const satisfies FunctionSpec<ObjectTypeName>;

/** The getUsage function. */
export const GET_USAGE = {
  token: "proxy:index:getUsage",
  description: "Reads the usage of the current billing period (`GET /v1/usage`).",
  outputs: {
    period: { type: "UsagePeriod", description: "The billing period." },
    asOf: { type: "string", description: "When the figures were computed (RFC 3339)." },
    bandwidth: { type: "BandwidthUsage", description: "Bandwidth used." },
    requests: { type: "RequestUsage", description: "Requests made." },
  },
} as const satisfies FunctionSpec<ObjectTypeName>;

/** The provider's own settings (a plugin provider's arguments, and the `proxy:*` config); config.ts resolves them. */
export const PROVIDER_SETTINGS = {
  description:
    "The provider of proxy resources: one account of the Proxy Provisioning API. Create more than one to use several accounts in one stack.",
  inputs: {
    baseUrl: {
      type: "string",
      presence: "optional",
      description:
        "Base URL of the Proxy Provisioning API, without `/v1` (https, or http on a loopback host such as the local sandbox). Falls back to `PROXY_API_BASE_URL`.",
    },
    apiKey: { type: "string", presence: "optional", secret: true, description: "API key of the account. Falls back to `PROXY_API_KEY`." },
    maxRateShare: {
      type: "integer",
      presence: "optional",
      description:
        "The most of the API key's rate limit this provider uses, as a whole percent from 1 to 100 (default 100): leave room for other users of the key, such as an application. It acts on each quota the API's rate-limit hints report, from the first answer that carries them; where hints come only with refusals, or never, it acts from the first refusal on (a `429`, or a `503` while the API answers the key's other requests: on the rate its hints imply, or without hints on the most the key took from this provider), and until then the provider's slow start is not capped by it. Falls back to `PROXY_API_MAX_RATE_SHARE`.",
    },
  },
} as const;

/** Every resource, and every function. */
export const RESOURCES = [PROXY_ORDER, PROXY_FLEET] as const;
export const FUNCTIONS = [GET_PROXIES, GET_PROXY_HEALTH, GET_USAGE] as const;

type Types = typeof OBJECT_TYPES;

/** The TypeScript types of the object types. */
export interface ObjectTypes {
  StatusReason: ShapeOf<Types["StatusReason"]["properties"], ObjectTypes>;
  ProxyInfo: ShapeOf<Types["ProxyInfo"]["properties"], ObjectTypes>;
  ProxyCredential: ShapeOf<Types["ProxyCredential"]["properties"], ObjectTypes>;
  UsagePeriod: ShapeOf<Types["UsagePeriod"]["properties"], ObjectTypes>;
  BandwidthUsage: ShapeOf<Types["BandwidthUsage"]["properties"], ObjectTypes>;
  RequestUsage: ShapeOf<Types["RequestUsage"]["properties"], ObjectTypes>;
  FleetMember: ShapeOf<Types["FleetMember"]["properties"], ObjectTypes>;
  /** A proxy of a fleet always names its order; the schema shows it as a ProxyInfo. */
  FleetProxy: ShapeOf<Types["ProxyInfo"]["properties"], ObjectTypes> & { orderId: string };
  FleetCredential: ShapeOf<Types["FleetCredential"]["properties"], ObjectTypes>;
  HealthCheck: ShapeOf<Types["HealthCheck"]["properties"], ObjectTypes>;
  ProxyHealth: ShapeOf<Types["ProxyHealth"]["properties"], ObjectTypes>;
  HealthReport: ShapeOf<Types["HealthReport"]["properties"], ObjectTypes>;
}

/** Properties `F` of this module as TypeScript types. */
export type Shape<F> = ShapeOf<F, ObjectTypes>;

// The object types the API's records fill must say what the contract says (contract/types.ts), and those of the
// health checks what health/ and health.ts take and give.
const contractShapes: [
  Same<ObjectTypes["ProxyInfo"], Omit<ProxyRecord, "username" | "password">>,
  Same<ObjectTypes["StatusReason"], ContractStatusReason>,
  Same<ObjectTypes["UsagePeriod"], Usage["period"]>,
  Same<ObjectTypes["BandwidthUsage"], Usage["bandwidth"]>,
  Same<ObjectTypes["RequestUsage"], Usage["requests"]>,
  Same<ObjectTypes["HealthReport"], HealthOutput>,
  Same<ObjectTypes["HealthCheck"], HealthCheckInput>,
] = [true, true, true, true, true, true, true];
void contractShapes;

/**
 * The fields of the API's order that ProxyOrder and fleet members do not show under their own name in
 * {@link ORDER_FIELDS}, and why. Every field of the order (contract/wire.ts) is one or the other: a field added to the
 * contract fails the type check below until it is shown (a line here in ORDER_FIELDS, and the line of `orderFields`
 * that computes it) or listed here.
 */
export const ORDER_FIELDS_NOT_SHOWN = {
  id: "shown as `orderId`",
  planId: "the input `planId`",
  updatedAt: "changes with every status; `status` and `readyAt` say what matters",
  estimatedReadyAt: "a hint the waiter polls by",
  proxies: "shown as `proxies` (without credentials) and `credentials`",
} as const satisfies { readonly [K in keyof Order]?: string };

// Fails naming each field of the order in neither (TS2741: "Property 'region' is missing in type '{}'").
const orderFieldsInNeither: Record<Exclude<keyof Order, keyof typeof ORDER_FIELDS | keyof typeof ORDER_FIELDS_NOT_SHOWN>, never> = {};
void orderFieldsInNeither;
