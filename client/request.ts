/**
 * The one request path of the API client: authentication, timeouts, an overall deadline, the key's request budget
 * (every attempt waits for its turn there, and a `429` is waited out there), retries with backoff and `Retry-After`,
 * and turning every failure into a typed error with the API key redacted.
 */
import type { Dispatcher } from "undici";
import { readRateLimitHints } from "../contract";
import { BudgetDeadlineError, RequestBudget, type Permit, type RequestPriority } from "./budget";
import { ACCEPTED_ENCODINGS, readBody, UndecodableBodyError } from "./body";
import { realClock, type Clock } from "./clock";
import { defaultDispatcher } from "./dispatcher";
import {
  ConnectionError,
  connectionAdvice,
  errorFromResponse,
  ProxyApiError,
  RateLimitError,
  UnexpectedResponseError,
} from "./errors";
import { readServerProblem } from "./problem";
import { backoffDelay, isRetryable } from "./retry";
import type { CallTrace, CallTracer } from "./trace";
import { USER_AGENT } from "./version";

/** Options of the API client. Every option but `baseUrl` and `apiKey` has a default in {@link DEFAULT_CLIENT_OPTIONS}. */
export interface ClientOptions {
  /** Base URL of the API, without `/v1` (the client adds it). */
  baseUrl: string;
  /** API key, sent as `Authorization: Bearer <key>`. */
  apiKey: string;
  /** Time to receive the response headers, per attempt. @default 30000 */
  headersTimeoutMs?: number;
  /** Time allowed between two chunks of the response body, per attempt. @default 30000 */
  bodyTimeoutMs?: number;
  /** Attempts per call, the first included. A `429` is waited out and uses none of them. @default 5 */
  maxAttempts?: number;
  /** Delay before the first retry, before jitter. @default 500 */
  initialRetryDelayMs?: number;
  /** Largest delay between attempts, before jitter. @default 10000 */
  maxRetryDelayMs?: number;
  /** Longest `Retry-After` the client waits for; a longer one ends the call with the error. @default 60000 */
  maxRetryAfterMs?: number;
  /** Overall deadline of one call, all attempts and waits included. @default 120000 */
  callDeadlineMs?: number;
  /** Largest response body read, in bytes once decoded (gzip, deflate, br); a larger one fails the call. @default 33554432 (32 MiB) */
  maxResponseBytes?: number;
  /**
   * An undici `Dispatcher` (an `Agent`, `ProxyAgent` or `MockAgent`) to send through. By default undici's global
   * dispatcher, looked up per call (so nock and MockAgent intercept it), or an `EnvHttpProxyAgent` when
   * `HTTPS_PROXY`/`HTTP_PROXY` are set. Typed loosely so undici's types do not become part of this package's.
   */
  dispatcher?: object;
  /**
   * The request budget this client's calls share (client/budget.ts): clients on one key that share one stay under one
   * rate limit together (the provider's cores and functions share their account's, provider/api/account.ts).
   * @default a budget of this client's own
   */
  budget?: RequestBudget;
  /**
   * The time the client's deadlines count in and its back-offs pass on; a budget the client makes of its own takes it
   * too. (Tests pass a simulated one; the provider passes its own.) @default the real clock
   */
  clock?: Clock;
  /** Told of every call, its attempts, its waits and its back-offs (client/trace.ts). @default none */
  tracer?: CallTracer;
  /** Called before each retry after an error (for logs); not for a `429`, which is a wait. It receives no secret. */
  onRetry?: (event: RetryEvent) => void;
  /**
   * The most of the key's rate limit this client's budget uses, in percent (1 to 100): of each quota the hints report,
   * and of the rate a 429's hints imply (client/pace.ts). Clients sharing a budget share the smallest share any of
   * them asked for. @default 100
   */
  maxRateShare?: number;
}

/** Per-call options of every client method. */
export interface CallOptions {
  /** Cancels the call, its retries and its waits; it rejects with a ConnectionError of code `aborted`. */
  signal?: AbortSignal;
  /**
   * A later deadline for this call, in epoch milliseconds on the client's clock: the call ends at the later of this and
   * now + `callDeadlineMs`, waits for the rate limit included. A call the rate limit holds back past it rejects with a
   * RateLimitError. (A poll may wait for its turn until its order's deadline.)
   */
  deadline?: number;
  /** Where the call queues when the API's rate limit holds requests back (client/budget.ts). @default "urgent" */
  priority?: RequestPriority;
  /** Called when an attempt of this call was held back by the rate limit, with how long. */
  onHeld?: (heldMs: number) => void;
}

/** Describes one retry, for logging. */
export interface RetryEvent {
  method: string;
  path: string;
  /** The attempt that failed, from 1. */
  attempt: number;
  /** Delay before the next attempt. */
  delayMs: number;
  /** Status of the failed attempt, or undefined for a connection error. */
  status?: number;
  /** Error code of the failed attempt. */
  code: string;
}

/** Defaults of every optional {@link ClientOptions} field (the README's table is checked against these). */
export const DEFAULT_CLIENT_OPTIONS = {
  headersTimeoutMs: 30_000,
  bodyTimeoutMs: 30_000,
  maxAttempts: 5,
  initialRetryDelayMs: 500,
  maxRetryDelayMs: 10_000,
  maxRetryAfterMs: 60_000,
  callDeadlineMs: 120_000,
  maxResponseBytes: 32 * 1024 * 1024,
  maxRateShare: 100,
} as const;

/** One API call. */
export interface ApiRequest extends CallOptions {
  method: "GET" | "POST";
  /** Path below `/v1`, such as `/orders`. */
  path: string;
  query?: Record<string, string | undefined>;
  body?: unknown;
  /** Sent as `Idempotency-Key`; a POST is retried only when it has one. */
  idempotencyKey?: string;
}

/** A successful (2xx) response. */
export interface ApiResponse {
  status: number;
  headers: Record<string, string>;
  /** The parsed JSON body, or undefined when the body was empty or not JSON. */
  body: unknown;
  requestId?: string;
  /** The answer's `Retry-After`, in milliseconds (on an order still being provisioned: when to read it again). */
  retryAfterMs?: number;
  /**
   * True when an earlier attempt of this call may have taken effect on the server: it got no answer, a 5xx, or a
   * 409 (the same key still in progress). A replayed POST after such an attempt may be this call's own purchase.
   */
  afterUncertainAttempt: boolean;
}

/** Sends API requests with one set of options. */
export class RequestSender {
  private readonly options: Required<Omit<ClientOptions, "dispatcher" | "onRetry" | "budget" | "tracer" | "clock">> & Pick<ClientOptions, "onRetry" | "tracer">;
  private readonly dispatcher: Dispatcher | undefined;
  /** The client's time (its option `clock`). */
  readonly clock: Clock;
  /** The budget every attempt waits in. */
  readonly budget: RequestBudget;

  constructor(options: ClientOptions) {
    this.options = {
      ...DEFAULT_CLIENT_OPTIONS,
      ...withoutUndefined(options),
      apiKey: options.apiKey,
      baseUrl: options.baseUrl.replace(/\/+$/, ""),
    };
    this.dispatcher = options.dispatcher as Dispatcher | undefined;
    this.clock = options.clock ?? realClock;
    this.budget = options.budget ?? new RequestBudget({ clock: this.clock });
    if (options.maxRateShare !== undefined) this.budget.limitShare(options.maxRateShare / 100);
  }

  /** Sends the request, retrying as the options allow; resolves with a 2xx response or rejects with a ProxyApiError. */
  async send(req: ApiRequest): Promise<ApiResponse> {
    const path = `/v1${req.path}`;
    const trace = this.options.tracer?.call(req.method, path, /^\/orders\/([^/?]+)/.exec(req.path)?.[1]);
    if (!trace) return this.sendTraced(req, path, undefined);
    try {
      const response = await this.sendTraced(req, path, trace);
      trace.end({ status: response.status, requestId: response.requestId });
      return response;
    } catch (error) {
      trace.end(error instanceof ProxyApiError ? { status: error.status, requestId: error.requestId, code: error.code } : { code: "error" });
      throw error;
    }
  }

  private async sendTraced(req: ApiRequest, path: string, trace: CallTrace | undefined): Promise<ApiResponse> {
    const { maxAttempts, callDeadlineMs, maxRetryAfterMs } = this.options;
    const deadline = Math.max(this.clock.now() + callDeadlineMs, req.deadline ?? 0);
    const idempotent = req.method === "GET" || req.idempotencyKey !== undefined;

    let uncertain = false;
    let throttled: ProxyApiError | undefined;
    for (let attempt = 1, sent = 0; ; ) {
      const permit = await this.permit(req, path, deadline, throttled, trace);
      const tried = trace?.attempt(++sent);
      const result = await this.attempt(req, path, deadline, permit);
      tried?.end(result instanceof ProxyApiError ? { status: result.status, requestId: result.requestId, code: result.code, retryAfterMs: result.retryAfterMs } : result);
      if (!(result instanceof ProxyApiError)) {
        return { ...result, afterUncertainAttempt: uncertain };
      }
      uncertain ||= result.status === undefined || result.status >= 500 || result.status === 409;
      const hint = result.retryAfterMs;
      // A 503 while the API takes other requests of the key is load shed, as nginx's limit_req does by default.
      const shed = result.status === 429 || (result.status === 503 && this.budget.serving());
      if (shed && idempotent && !(hint !== undefined && hint > maxRetryAfterMs)) {
        // A wait, not a failure: the budget pauses every request on the key until Retry-After, and uses no attempt.
        throttled = result;
        continue;
      }
      if (result.code === "aborted" || attempt >= maxAttempts || !isRetryable({ status: result.status, idempotent })) {
        throw result;
      }
      if (hint !== undefined && hint > maxRetryAfterMs) {
        throw result;
      }
      const delayMs = Math.max(hint ?? 0, backoffDelay(attempt - 1, this.options));
      if (this.clock.now() + delayMs >= deadline) {
        throw result;
      }
      trace?.backoff(delayMs, { status: result.status, requestId: result.requestId, code: result.code });
      this.options.onRetry?.({
        method: req.method,
        path,
        attempt,
        delayMs,
        status: result.status,
        code: result.code,
      });
      attempt += 1;
      try {
        await this.clock.sleep(delayMs, req.signal);
      } catch {
        throw this.connectionError(req.method, path, "aborted", "the call was cancelled");
      }
    }
  }

  /** Waits for the key's budget to let one attempt go. */
  private async permit(
    req: ApiRequest,
    path: string,
    deadline: number,
    throttled: ProxyApiError | undefined,
    trace: CallTrace | undefined,
  ): Promise<Permit> {
    try {
      const permit = await this.budget.acquire({ priority: req.priority ?? "urgent", deadline, signal: req.signal });
      if (permit.heldMs > 0) {
        req.onHeld?.(permit.heldMs);
        trace?.held(permit.heldMs);
      }
      return permit;
    } catch (error) {
      if (!(error instanceof BudgetDeadlineError)) {
        throw this.connectionError(req.method, path, "aborted", "the call was cancelled");
      }
      const said = `${req.method} ${path} was held back by the API's rate limit for this key until the call's deadline`;
      const advice =
        "Nothing more was sent. Lower `pulumi up --parallel`, give the orders a longer readyTimeout, or ask the API's " +
        "operator for a higher limit.";
      if (throttled) {
        throw throttled.withMessage(`${said}; it last answered ${throttled.status}. ${advice}${throttled.requestId ? ` (request id ${throttled.requestId})` : ""}`);
      }
      throw new RateLimitError(`${said}. ${advice}`, { code: "rate_limited", method: req.method, path });
    }
  }

  /** One attempt. Returns the error instead of throwing it, so the loop above decides about retries. */
  private async attempt(
    req: ApiRequest,
    path: string,
    deadline: number,
    permit: Permit,
  ): Promise<Omit<ApiResponse, "afterUncertainAttempt"> | ProxyApiError> {
    try {
      return await this.exchange(req, path, deadline, permit);
    } finally {
      permit.settle();
    }
  }

  /** One attempt: the request sent within what is left of the deadline, and its answer read into a result or an error. */
  private async exchange(
    req: ApiRequest,
    path: string,
    deadline: number,
    permit: Permit,
  ): Promise<Omit<ApiResponse, "afterUncertainAttempt"> | ProxyApiError> {
    const url = new URL(this.options.baseUrl + path);
    for (const [name, value] of Object.entries(req.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, value);
    }
    const remaining = deadline - this.clock.now();
    if (remaining <= 0) {
      return this.connectionError(req.method, path, "deadline", "the call's deadline passed before the request was sent");
    }
    if (req.signal?.aborted) {
      return this.connectionError(req.method, path, "aborted", "the call was cancelled");
    }
    // Whole milliseconds: AbortSignal.timeout refuses a fraction, which a simulated clock may give.
    const timeout = AbortSignal.timeout(Math.ceil(remaining));
    try {
      // The dispatcher's own method, not undici's top-level `request(url, { dispatcher })`: on Node 26 the global
      // dispatcher is Node's bundled undici, whose instance methods refuse an `opts.dispatcher` that the top-level
      // function of this package's undici passes on (UND_ERR_INVALID_ARG).
      const dispatcher = this.dispatcher ?? defaultDispatcher();
      const res = await dispatcher.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: req.method,
        headers: this.headersOf(req),
        body: req.body === undefined ? undefined : JSON.stringify(req.body),
        headersTimeout: this.options.headersTimeoutMs,
        bodyTimeout: this.options.bodyTimeoutMs,
        signal: req.signal ? AbortSignal.any([req.signal, timeout]) : timeout,
      });
      return await this.answerOf(req, path, res, permit);
    } catch (error) {
      if (req.signal?.aborted) {
        return this.connectionError(req.method, path, "aborted", "the call was cancelled");
      }
      const { code, message } = describeNetworkError(error);
      return this.connectionError(req.method, path, code, message);
    }
  }

  /** An answer: its hints to the budget, then its body read (within the size limit) into a result or an error. */
  private async answerOf(
    req: ApiRequest,
    path: string,
    res: Dispatcher.ResponseData,
    permit: Permit,
  ): Promise<Omit<ApiResponse, "afterUncertainAttempt"> | ProxyApiError> {
    const responseHeaders = flattenHeaders(res.headers);
    // The one reading of the answer's rate-limit hints and Retry-After. A time the API states (an HTTP date, a Unix
    // reset) is the API's, read against the real time as the answer's Date corrects it (clock.ts).
    const hints = readRateLimitHints(responseHeaders, Date.now());
    const { retryAfterMs } = hints;
    permit.settle({ status: res.statusCode, hints });
    const requestId = responseHeaders["x-request-id"];
    const text = await readBody(res.body, responseHeaders["content-encoding"], this.options.maxResponseBytes).catch((error: unknown) => {
      if (!(error instanceof UndecodableBodyError)) throw error;
      return new UnexpectedResponseError(`${req.method} ${path} returned ${res.statusCode} with ${this.redact(error.message)}. The API may have changed; please report it.`, {
        status: res.statusCode,
        code: error.code,
        method: req.method,
        path,
        requestId,
      });
    });
    if (text instanceof UnexpectedResponseError) return text;
    if (text === undefined) {
      return new UnexpectedResponseError(
        `${req.method} ${path} returned a body over ${this.options.maxResponseBytes} bytes; it was not read. ` +
          "The API may have changed; please report it.",
        { status: res.statusCode, code: "response_too_large", method: req.method, path, requestId },
      );
    }
    const body = parseJson(text);
    // A 303 See Other to a POST says it was carried out and where its result is (RFC 9110 15.4.4): a purchase made,
    // which the caller reads as an answer (its Location names the order), not as a refusal.
    const seeOther = res.statusCode === 303 && req.method === "POST";
    if ((res.statusCode >= 200 && res.statusCode < 300) || seeOther) {
      return { status: res.statusCode, headers: responseHeaders, body, requestId, retryAfterMs };
    }
    const problem = readServerProblem(body, text, (said) => this.redact(said));
    return errorFromResponse({ status: res.statusCode, method: req.method, path, problem, requestId, retryAfterMs, location: responseHeaders.location });
  }

  /** The request's headers: the key, JSON, this package's user agent, and the idempotency key of a POST. */
  private headersOf(req: ApiRequest): Record<string, string> {
    return {
      authorization: `Bearer ${this.options.apiKey}`,
      accept: "application/json",
      "accept-encoding": ACCEPTED_ENCODINGS,
      "user-agent": USER_AGENT,
      ...(req.body === undefined ? {} : { "content-type": "application/json" }),
      ...(req.idempotencyKey === undefined ? {} : { "idempotency-key": req.idempotencyKey }),
    };
  }

  private connectionError(method: string, path: string, code: string, detail: string): ConnectionError {
    const safeDetail = this.redact(detail);
    const cause = new Error(safeDetail);
    cause.name = code;
    return new ConnectionError(
      `${method} ${path} got no response from ${this.options.baseUrl} (${code}: ${safeDetail}). ${connectionAdvice(code)}`,
      { code, method, path, cause },
    );
  }

  /** Removes the API key from text that came from outside (a server could echo the Authorization header). */
  private redact(text: string): string {
    return redactSecret(text, this.options.apiKey);
  }
}

/** Replaces every occurrence of `secret` in `text` with `[redacted]`. */
function redactSecret(text: string, secret: string): string {
  return secret.length > 0 ? text.split(secret).join("[redacted]") : text;
}

/** The entries of `value` that are not undefined. */
export function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) {
      flat[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
    }
  }
  return flat;
}

function parseJson(text: string): unknown {
  if (text.trim() === "") {
    return undefined;
  }
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Names a network failure by its code, without the error object itself (which may hold request options). */
function describeNetworkError(error: unknown): { code: string; message: string } {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    if (error.name === "TimeoutError" || error.name === "AbortError") {
      return { code: "deadline", message: "the call's deadline passed while waiting for the response" };
    }
    return { code: typeof code === "string" ? code : error.name, message: error.message };
  }
  return { code: "network", message: String(error) };
}
