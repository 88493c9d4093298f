/**
 * The local sandbox of the Proxy Provisioning API: a node:http server implementing docs/api-contract.md.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { handleAdmin } from "./admin";
import { SANDBOX_API_KEY, SANDBOX_READ_ONLY_API_KEY, type CreatedOrder, type RecordedRequest, type Sandbox, type SandboxOptions, type SandboxSettings } from "./sandbox";
import { createClock } from "./clock";
import { Faults, type FailFault } from "./faults";
import { contractProblems, type Answer } from "./answer-check";
import { jsonAnswer, parseMaybe, Problem, problemAnswer, send } from "./http";
import { openApiDocument } from "../contract";
import { rateLimitHeaders } from "../contract/rate-limit";
import { RateLimiter, sendsHints } from "./rate-limit";
import { route } from "./routes";
import { SandboxState } from "./state";
import { orderStatus } from "./views";

const MAX_BODY_BYTES = 64 * 1024;

/** Starts a sandbox and resolves once it listens. */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const apiKey = options.apiKey ?? SANDBOX_API_KEY;
  const readOnlyApiKey = options.readOnlyApiKey ?? SANDBOX_READ_ONLY_API_KEY;
  const settings: SandboxSettings = { provisioningMs: options.provisioningMs ?? 3000, orderLifetimeMs: options.orderLifetimeMs };
  const clock = createClock(options.now);
  const now = clock.now;
  const state = new SandboxState(options.stateFile);
  const faults = new Faults();
  const limiter =
    options.rateLimit === false ? undefined : new RateLimiter(options.rateLimit ?? { requestsPerSecond: 10 }, now);
  const requests: RecordedRequest[] = [];
  const createdOrders: CreatedOrder[] = [];
  const contractViolations: string[] = [];
  const latencyMs = options.latencyMs ?? 0;

  const sandbox: Omit<Sandbox, "url" | "port" | "stop"> = {
    apiKey,
    faults,
    state,
    clock,
    settings,
    requests,
    createdOrders,
    contractViolations,
    cancelOrder(id) {
      const order = state.orders.get(id);
      if (!order) throw new Problem(404, `No order has the id "${id}".`);
      order.cancelledAt = now();
      state.save();
    },
    removeOrder(id) {
      state.orders.delete(id);
      state.save();
    },
    orderStatus(id) {
      const order = state.orders.get(id);
      return order && orderStatus(order, now());
    },
    reset() {
      faults.clear();
      settings.provisioningMs = options.provisioningMs ?? 3000;
      settings.orderLifetimeMs = options.orderLifetimeMs;
      requests.length = 0;
      createdOrders.length = 0;
      state.reset();
      limiter?.reset();
    },
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const requestId = `req_${randomBytes(8).toString("hex")}`;
    const url = new URL(req.url ?? "/", "http://sandbox");
    const method = req.method ?? "GET";
    const header = (name: string): string | undefined => {
      const value = req.headers[name];
      return Array.isArray(value) ? value.join(", ") : value;
    };
    const auth = authenticate(header("authorization"), apiKey, readOnlyApiKey);
    const record: RecordedRequest = {
      method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      idempotencyKey: header("idempotency-key"),
      auth,
      status: 0,
      requestId,
      at: now(),
    };
    requests.push(record);
    // An injected fault is a departure the test chose, so its answer is not checked.
    let injected = false;
    const finish = async (answer: Answer): Promise<void> => {
      const sent = { ...answer, headers: { ...answer.headers, "x-request-id": requestId } };
      const checked = url.pathname.startsWith("/v1/") && options.checkAnswers !== false && !injected;
      const problems = checked ? contractProblems(method, url.pathname, sent) : [];
      if (problems.length > 0) {
        const violation = `${method} ${url.pathname} answered ${answer.status} against the contract: ${problems.join("; ")}`;
        contractViolations.push(violation);
        console.error(`sandbox: ${violation}`);
        await finish(problemAnswer(new Problem(500, `The sandbox broke the contract (${problems.join("; ")}).`), requestId, url.pathname));
        return;
      }
      record.status = sent.status;
      if (latencyMs > 0 && url.pathname.startsWith("/v1/")) await sleep(latencyMs / 2);
      send(res, sent);
    };
    try {
      const body = await readBody(req);
      record.body = parseMaybe(body);
      if (url.pathname.startsWith("/__sandbox/") && options.enableAdmin) {
        if (auth !== "valid") throw new Problem(401, "The admin routes need the sandbox's full API key.");
        const admin = handleAdmin(method, url.pathname, body, sandbox);
        await finish(jsonAnswer(admin.status, admin.body));
        return;
      }
      if (url.pathname === "/openapi.json" && method === "GET") {
        await finish(jsonAnswer(200, openApiDocument()));
        return;
      }
      if (!url.pathname.startsWith("/v1/")) {
        throw new Problem(404, `No route for ${url.pathname}; the API lives under /v1.`);
      }
      if (latencyMs > 0) await sleep(latencyMs / 2);
      if (auth === "missing" || auth === "invalid") {
        throw new Problem(
          401,
          auth === "missing" ? "Send the API key as `Authorization: Bearer <key>`." : "The API key is not accepted.",
          { headers: { "www-authenticate": 'Bearer realm="proxy-api"' } },
        );
      }
      const limitHeaders: Record<string, string> = {};
      if (limiter) {
        const decision = limiter.take(auth === "valid" ? apiKey : readOnlyApiKey);
        if (sendsHints(options.rateLimitHints, decision.allowed)) {
          Object.assign(limitHeaders, rateLimitHeaders(options.rateLimitHintForm ?? "contract", decision.quota, now()));
        }
        if (!decision.allowed) {
          throw new Problem(429, "Too many requests for this API key.", {
            headers: { ...limitHeaders, "retry-after": String(decision.retryAfterSeconds) },
          });
        }
      }
      const fault = faults.takeFailure(method, url.pathname);
      if (fault) {
        injected = true;
        throw injectedProblem(fault);
      }
      const result = await route(
        {
          method,
          path: url.pathname,
          query: url.searchParams,
          headers: { "idempotency-key": record.idempotencyKey },
          body,
          canWrite: auth === "valid",
        },
        {
          state,
          now: now(),
          pollingHints: options.pollingHints ?? true,
          provisioningMs: settings.provisioningMs,
          orderLifetimeMs: settings.orderLifetimeMs,
          hiddenReadsForNewOrders: faults.notFoundReadsForNewOrders,
          takeFailNewOrder: () => faults.takeFailNewOrder(),
          beforeCommit: async () => {
            if (faults.delayMs > 0) await sleep(faults.delayMs);
            return now();
          },
          onOrderCreated: (id, idempotencyKey) => createdOrders.push({ id, idempotencyKey }),
        },
      );
      if (result.committedOrderId !== undefined && faults.takeResetAfterCommit()) {
        req.socket.destroy();
        return;
      }
      if (faults.delayMs > 0 && result.committedOrderId === undefined) {
        await sleep(faults.delayMs);
      }
      await finish(jsonAnswer(result.status, result.body, { ...limitHeaders, ...result.headers }));
    } catch (error) {
      const problem =
        error instanceof Problem ? error : new Problem(500, "The sandbox failed unexpectedly; see its console.");
      if (!(error instanceof Problem)) {
        console.error("sandbox: unexpected error", error);
      }
      await finish(problemAnswer(problem, requestId, url.pathname));
    }
  };

  const server = createServer((req, res) => {
    void handle(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    ...sandbox,
    url: `http://${host}:${address.port}`,
    port: address.port,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function authenticate(header: string | undefined, apiKey: string, readOnlyApiKey: string): string {
  if (!header) return "missing";
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  if (!match) return "invalid";
  const given = match[1] ?? "";
  if (sameSecret(given, apiKey)) return "valid";
  if (sameSecret(given, readOnlyApiKey)) return "read-only";
  return "invalid";
}

function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
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
    if (size > MAX_BODY_BYTES) {
      throw new Problem(400, `The body is over ${MAX_BODY_BYTES} bytes.`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}
