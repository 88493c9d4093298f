/**
 * One request through the sandbox, step by step: record it, read its body, route it (admin, the OpenAPI document, or
 * the API under `/v1` once it is authenticated and within the rate limit), and answer, checking the answer against the
 * contract on the way out. Each step is a method; the order of the steps is `run`.
 */
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { rateLimitHeaders } from "../contract";
import { openApiDocument } from "../contract/openapi";
import { handleAdmin } from "./admin";
import { contractProblems, type Answer } from "./answer-check";
import { authenticate, type Auth } from "./auth";
import type { FailFault } from "./faults";
import { jsonAnswer, parseMaybe, Problem, problemAnswer, send } from "./http";
import type { ProxyListeners } from "./proxy-serving";
import { sendsHints, type RateLimiter } from "./rate-limit";
import { route } from "./routes";
import type { RecordedRequest, Sandbox, SandboxOptions } from "./sandbox";

const MAX_BODY_BYTES = 64 * 1024;

/** What every request of one running sandbox shares. */
export interface Running {
  options: SandboxOptions;
  /** The sandbox's handle, without what only listening gives (its URL and `stop`). */
  sandbox: Omit<Sandbox, "url" | "port" | "stop">;
  readOnlyApiKey: string;
  limiter: RateLimiter | undefined;
  /** The served proxies' listeners (the option `serveProxies`). */
  listeners: ProxyListeners | undefined;
}

/** One request and its answer. */
export class Exchange {
  private readonly url: URL;
  private readonly method: string;
  private readonly auth: Auth;
  private readonly record: RecordedRequest;
  /** An injected fault is a departure the test chose, so its answer is not checked. */
  private injected = false;

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly running: Running,
  ) {
    const { sandbox } = running;
    this.url = new URL(req.url ?? "/", "http://sandbox");
    this.method = req.method ?? "GET";
    this.auth = authenticate(this.header("authorization"), sandbox.apiKey, running.readOnlyApiKey);
    this.record = {
      method: this.method,
      path: this.url.pathname,
      query: Object.fromEntries(this.url.searchParams),
      idempotencyKey: this.header("idempotency-key"),
      auth: this.auth,
      status: 0,
      requestId: `req_${randomBytes(8).toString("hex")}`,
      at: sandbox.clock.now(),
    };
    sandbox.requests.push(this.record);
  }

  /** Answers the request; any error becomes a problem document. */
  async run(): Promise<void> {
    try {
      const body = await readBody(this.req);
      this.record.body = parseMaybe(body);
      const { pathname } = this.url;
      if (pathname.startsWith("/__sandbox/") && this.running.options.enableAdmin) return await this.admin(body);
      if (pathname === "/openapi.json" && this.method === "GET") return await this.finish(jsonAnswer(200, openApiDocument()));
      if (!pathname.startsWith("/v1/")) throw new Problem(404, `No route for ${pathname}; the API lives under /v1.`);
      await this.api(body);
    } catch (error) {
      if (!(error instanceof Problem)) console.error("sandbox: unexpected error", error);
      const problem = error instanceof Problem ? error : new Problem(500, "The sandbox failed unexpectedly; see its console.");
      await this.finish(problemAnswer(problem, this.record.requestId, this.url.pathname));
    }
  }

  private header(name: string): string | undefined {
    const value = this.req.headers[name];
    return Array.isArray(value) ? value.join(", ") : value;
  }

  private async admin(body: string): Promise<void> {
    if (this.auth !== "valid") throw new Problem(401, "The admin routes need the sandbox's full API key.");
    const answer = await handleAdmin(this.method, this.url.pathname, body, this.running.sandbox);
    await this.finish(jsonAnswer(answer.status, answer.body));
  }

  /** A request under `/v1`: authenticated, within the rate limit, past any injected fault, then routed. */
  private async api(body: string): Promise<void> {
    const { options, sandbox } = this.running;
    const { faults } = sandbox;
    if ((options.latencyMs ?? 0) > 0) await sleep((options.latencyMs ?? 0) / 2);
    this.authenticated();
    const limitHeaders = this.withinRateLimit();
    const fault = faults.takeFailure(this.method, this.url.pathname);
    if (fault) {
      this.injected = true;
      throw injectedProblem(fault);
    }
    const result = await this.route(body);
    if (result.committedOrderId !== undefined && faults.takeResetAfterCommit()) {
      this.req.socket.destroy();
      return;
    }
    if (faults.delayMs > 0 && result.committedOrderId === undefined) await sleep(faults.delayMs);
    await this.finish(jsonAnswer(result.status, result.body, { ...limitHeaders, ...result.headers }));
  }

  private authenticated(): void {
    if (this.auth !== "missing" && this.auth !== "invalid") return;
    const detail = this.auth === "missing" ? "Send the API key as `Authorization: Bearer <key>`." : "The API key is not accepted.";
    throw new Problem(401, detail, { headers: { "www-authenticate": 'Bearer realm="proxy-api"' } });
  }

  /** Takes a token of the key's bucket; the hint headers for the answer, or a `429` when none was left. */
  private withinRateLimit(): Record<string, string> {
    const { limiter, options, sandbox } = this.running;
    if (!limiter) return {};
    const decision = limiter.take(this.auth === "valid" ? sandbox.apiKey : this.running.readOnlyApiKey);
    const headers = sendsHints(options.rateLimitHints, decision.allowed)
      ? rateLimitHeaders(options.rateLimitHintForm ?? "contract", decision.quota, sandbox.clock.now())
      : {};
    if (!decision.allowed) {
      throw new Problem(429, "Too many requests for this API key.", { headers: { ...headers, "retry-after": String(decision.retryAfterSeconds) } });
    }
    return headers;
  }

  private route(body: string): ReturnType<typeof route> {
    const { options, sandbox } = this.running;
    const { faults, settings, clock } = sandbox;
    const request = {
      method: this.method,
      path: this.url.pathname,
      query: this.url.searchParams,
      headers: { "idempotency-key": this.record.idempotencyKey },
      body,
      canWrite: this.auth === "valid",
    };
    return route(request, {
      state: sandbox.state,
      now: clock.now(),
      pollingHints: options.pollingHints ?? true,
      provisioningMs: settings.provisioningMs,
      orderLifetimeMs: settings.orderLifetimeMs,
      hiddenReadsForNewOrders: faults.notFoundReadsForNewOrders,
      takeFailNewOrder: () => faults.takeFailNewOrder(),
      beforeCommit: async () => {
        if (faults.delayMs > 0) await sleep(faults.delayMs);
        return clock.now();
      },
      onOrderCreated: (id, idempotencyKey) => sandbox.createdOrders.push({ id, idempotencyKey }),
      serveProxies: this.running.listeners && ((proxies) => this.running.listeners?.serve(proxies) ?? Promise.resolve()),
    });
  }

  /** Sends the answer, after checking it against the contract (an answer that breaks it becomes a `500` that says so). */
  private async finish(answer: Answer): Promise<void> {
    const { options, sandbox } = this.running;
    const { pathname } = this.url;
    // The Date by the sandbox's clock, which an advanced clock moves with the times the answer states (a client reads
    // those against it: contract/rate-limit.ts apiTime).
    const date = new Date(sandbox.clock.now()).toUTCString();
    const sent = { ...answer, headers: { ...answer.headers, date, "x-request-id": this.record.requestId } };
    const checked = pathname.startsWith("/v1/") && options.checkAnswers !== false && !this.injected;
    const problems = checked ? contractProblems(this.method, pathname, sent) : [];
    if (problems.length > 0) {
      const violation = `${this.method} ${pathname} answered ${answer.status} against the contract: ${problems.join("; ")}`;
      sandbox.contractViolations.push(violation);
      console.error(`sandbox: ${violation}`);
      await this.finish(problemAnswer(new Problem(500, `The sandbox broke the contract (${problems.join("; ")}).`), this.record.requestId, pathname));
      return;
    }
    this.record.status = sent.status;
    const latencyMs = options.latencyMs ?? 0;
    if (latencyMs > 0 && pathname.startsWith("/v1/")) await sleep(latencyMs / 2);
    send(this.res, sent);
  }
}

function injectedProblem(fault: FailFault): Problem {
  return new Problem(fault.status, `Injected failure (${fault.status}).`, {
    code: fault.code,
    headers: fault.retryAfterSeconds === undefined ? {} : { "retry-after": String(fault.retryAfterSeconds) },
  });
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Problem(400, `The body is over ${MAX_BODY_BYTES} bytes.`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}
