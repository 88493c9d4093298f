/**
 * The sandbox's public surface: its keys, the options of `startSandbox`, and the handle of a running sandbox. Apart
 * from server.ts, so the admin routes (admin.ts) and the server each depend on it rather than on each other.
 */
import type { SandboxClock } from "./clock";
import type { Faults } from "./faults";
import type { HintForm } from "../contract";
import type { RateLimitHints, RateLimitOptions } from "./rate-limit";
import type { ProxyServing, ServeProxiesOptions } from "./proxy-serving";
import type { SandboxRecords, SandboxState } from "./state";

/** The sandbox's documented default API key. It buys nothing real: the sandbox is local. */
export const SANDBOX_API_KEY = "sk_sandbox_0123456789abcdef";
/** A second key that may read but gets `403` on `POST /v1/orders`. */
export const SANDBOX_READ_ONLY_API_KEY = "sk_sandbox_readonly";

/** Options of {@link startSandbox}. */
export interface SandboxOptions {
  /** Port; 0 picks a free one. @default 0 */
  port?: number;
  /** Address to listen on. @default "127.0.0.1" */
  host?: string;
  /** The API key that may do everything. @default SANDBOX_API_KEY */
  apiKey?: string;
  /** A key that may only read. @default SANDBOX_READ_ONLY_API_KEY */
  readOnlyApiKey?: string;
  /** Time from `pending` to `active` (or `failed`). @default 3000 */
  provisioningMs?: number;
  /**
   * How long an order stays `active` before it becomes `expired` (its proxies carry the time as `expires_at`).
   * Seconds make renewal testable. @default each plan's lifetime (30 days)
   */
  orderLifetimeMs?: number;
  /** A token bucket per key, or false for no limit. @default { requestsPerSecond: 10, burst: 10 } */
  rateLimit?: RateLimitOptions | false;
  /** A JSON file that keeps orders across restarts. @default none (in memory) */
  stateFile?: string;
  /** Serve the admin routes under `/__sandbox/` (fault injection, records). @default false */
  enableAdmin?: boolean;
  /** The time source under the sandbox's clock. @default Date.now */
  now?: () => number;
  /** Send `estimated_ready_at` and `Retry-After` on pending orders, as the contract allows. @default true */
  pollingHints?: boolean;
  /**
   * Time each request under `/v1` takes on the way in and its answer on the way out, half each: a network and a
   * server that are not on loopback. The rate limit counts a request when it arrives. @default 0
   */
  latencyMs?: number;
  /**
   * When to send the rate-limit hints: with every answer (as the contract says), only with `429`s (as many real APIs
   * do), or never (a `429` then carries `Retry-After` alone). `true` and `false` mean `"always"` and `"never"`.
   * @default "always"
   */
  rateLimitHints?: RateLimitHints | boolean;
  /**
   * The form the hints take (contract/rate-limit.ts): `"contract"` (`RateLimit-Limit`, `-Remaining`, `-Reset`),
   * `"ietf-draft"` (`RateLimit` and `RateLimit-Policy`), `"ietf-draft-7"` (`RateLimit: limit=, remaining=, reset=`),
   * `"x-ratelimit"` (GitHub's) or `"x-rate-limit"` (Okta's).
   * @default "contract"
   */
  rateLimitHintForm?: HintForm;
  /**
   * Check every answer under `/v1` against the contract (the schemas and statuses docs/openapi.json is written from)
   * before sending it; an answer that breaks it is replaced by a `500` and recorded in `contractViolations`.
   * @default true
   */
  checkAnswers?: boolean;
  /**
   * Serve the proxies: each one provisioned gets a real listener on 127.0.0.1 that speaks its protocol (HTTP
   * `CONNECT` or SOCKS5) and requires its username and password, and `proxies.echoUrl` answers with the caller's
   * address (docs/sandbox.md). `true` serves them all healthy; the options make shares dead, slow or refuse their
   * credentials. @default false
   */
  serveProxies?: boolean | ServeProxiesOptions;
  /**
   * What the records carry: `full`, every field of the contract; `minimal`, the least it allows: proxies of the seed's
   * four fields with no credentials (allow-listed by IP: a served proxy then admits every client without
   * authentication), and orders without `estimated_ready_at`. @default "full"
   */
  records?: SandboxRecords;
}

/** One request the sandbox received, as tests see it. The key itself is never recorded. */
export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  idempotencyKey?: string;
  /** `valid`, `read-only`, `invalid` or `missing`. */
  auth: string;
  body?: unknown;
  /** Status answered, or 0 when the connection was reset instead. */
  status: number;
  requestId: string;
  /** When it arrived, in epoch milliseconds on the sandbox's clock. */
  at: number;
}

/** Settings that apply to the orders made from then on; tests and the admin route may change them while it runs. */
export interface SandboxSettings {
  /** Time from `pending` to `active` (or `failed`). */
  provisioningMs: number;
  /** Lifetime from ready to expiry; undefined: each plan's own. */
  orderLifetimeMs?: number;
}

/** One order the sandbox created. */
export interface CreatedOrder {
  id: string;
  idempotencyKey?: string;
}

/** A running sandbox. */
export interface Sandbox {
  /** Base URL, such as `http://127.0.0.1:41234` (the client adds `/v1`). */
  url: string;
  port: number;
  apiKey: string;
  faults: Faults;
  /** The account's orders, keys and balance. */
  state: SandboxState;
  /** The sandbox's time; `clock.advance(ms)` moves orders along without waiting. */
  clock: SandboxClock;
  /** Provisioning time and order lifetime of new orders. */
  settings: SandboxSettings;
  /** Every request received, in order. */
  requests: RecordedRequest[];
  /** Every order created, in order. */
  createdOrders: CreatedOrder[];
  /** The served proxies and their echo target; undefined unless the option `serveProxies` is set. */
  proxies?: ProxyServing;
  /** Answers that broke the contract (see `checkAnswers`), each described; empty while the sandbox keeps it. */
  contractViolations: string[];
  /** Marks an order `cancelled`, as an operator refund would. */
  cancelOrder(id: string): void;
  /** Removes an order, so reads of it answer `404`. */
  removeOrder(id: string): void;
  /** The order's status now, as `GET /v1/orders/{id}` would show it (without faults); undefined if there is none. */
  orderStatus(id: string): string | undefined;
  /** Clears the faults, the records, the account, the rate limit's count and changed settings (for tests between cases). */
  reset(): void;
  /** Stops listening and closes every connection. */
  stop(): Promise<void>;
}
