/**
 * Traces for the engine, when it asks for them (`pulumi up --otel-traces file://...` or an endpoint): the engine
 * then starts every plugin with `PULUMI_OTEL_EXPORTER_OTLP_ENDPOINT`, its OTLP collector. Each operation of the
 * provider is a span there, under the engine's call when the caller passes its `traceparent` (the plugin, from the
 * gRPC metadata), and every API request is a span under it, with its waits for the rate limit and its retries.
 *
 * Without that variable nothing is loaded: the OpenTelemetry SDK is required only once it is set (otel.ts).
 */

import type { CallTrace, CallTracer } from "../client";
import { callLog } from "./call-log";
import type { ProcessTracing, SpanAttributes } from "./types";

export type { ProcessTracing, SpanAttributes } from "./types";
export { EngineLog, type ResourceLog } from "./engine-log";

/** The variable through which the engine hands its OTLP collector's address (host:port, gRPC) to plugins. */
export const OTLP_ENDPOINT_VARIABLE = "PULUMI_OTEL_EXPORTER_OTLP_ENDPOINT";

let started: ProcessTracing | null | undefined;

/** The process's tracing, started on first use; undefined when the engine did not ask for traces. */
export function processTracing(serviceName: string, env: NodeJS.ProcessEnv = process.env): ProcessTracing | undefined {
  if (started === undefined) {
    const endpoint = env[OTLP_ENDPOINT_VARIABLE];
    // Loaded only now, so that a run without traces never loads the OpenTelemetry SDK.
    started = endpoint ? (require("./otel") as typeof import("./otel")).startTracing(serviceName, endpoint) : null;
  }
  return started ?? undefined;
}

/**
 * Runs one operation of the provider (a create, a refresh's read...) in its own span, flushed before it returns, when
 * the engine asked for traces; otherwise just runs it.
 */
export async function traceOperation<T>(
  serviceName: string,
  name: string,
  attributes: SpanAttributes,
  fn: () => Promise<T>,
  traceparent?: string,
): Promise<T> {
  const tracing = processTracing(serviceName);
  if (!tracing) return fn();
  try {
    return await tracing.inSpan(name, attributes, fn, traceparent);
  } finally {
    await tracing.flush();
  }
}

/** What a call tells when the process does not trace: nothing. */
const UNTRACED: CallTrace = { held() {}, attempt: () => ({ end() {} }), backoff() {}, end() {} };

/** Where the process writes its API exchange for Pulumi's debug log, once a front end gave it the engine's log. */
let debugCalls: CallTracer | undefined;

/**
 * Writes every API call of the process's clients to `write`, as lines for the engine's debug log (call-log.ts), from
 * now on: the plugin and the dynamic provider host give their engine's log here when they start.
 */
export function logCallsTo(write: (line: string) => void): void {
  debugCalls = callLog(write);
}

/** Both traces of a call: each part told in turn. */
function both(first: CallTrace, second: CallTrace): CallTrace {
  return {
    held: (heldMs) => (first.held(heldMs), second.held(heldMs)),
    attempt(attempt) {
      const [a, b] = [first.attempt(attempt), second.attempt(attempt)];
      return { end: (outcome) => (a.end(outcome), b.end(outcome)) };
    },
    backoff: (delayMs, outcome) => (first.backoff(delayMs, outcome), second.backoff(delayMs, outcome)),
    end: (outcome) => (first.end(outcome), second.end(outcome)),
  };
}

/**
 * What the provider's API clients tell of their calls (client/trace.ts): the process's tracing as of each call, so a
 * client made before the first traced operation started it (an account first used by a program's function, or
 * outside an operation) traces the calls it makes once tracing runs, and the debug log once a front end gave one
 * ({@link logCallsTo}). Until then, calls tell nothing.
 */
export const processCallTracer: CallTracer = {
  call(method, path, orderId) {
    const traced = started ? started.calls.call(method, path, orderId) : UNTRACED;
    return debugCalls ? both(traced, debugCalls.call(method, path, orderId)) : traced;
  },
};

/** Runs part of an operation (one fleet member's purchase) in a span of its own when tracing is on. */
export function traceStep<T>(name: string, attributes: SpanAttributes, fn: () => Promise<T>): Promise<T> {
  return started ? started.inSpan(name, attributes, fn) : fn();
}

/** The operations of a provider that call the API, each traced by {@link traceOperation}. */
const API_OPERATIONS = ["check", "create", "read", "update", "delete", "diff"] as const;

/**
 * The provider object with its API operations traced, named `<type> <operation>`, when the engine asked for traces;
 * otherwise the object itself. The dynamic host sends no trace context, so these spans start traces of their own.
 */
export function tracedOperations<T extends object>(provider: T, serviceName: string, type: string, env: NodeJS.ProcessEnv = process.env): T {
  if (!env[OTLP_ENDPOINT_VARIABLE]) return provider;
  const traced = new Set<PropertyKey>(API_OPERATIONS);
  return new Proxy(provider, {
    get(target, name) {
      const value: unknown = Reflect.get(target, name, target);
      if (typeof value !== "function") return value;
      if (!traced.has(name)) return value.bind(target);
      return (...args: unknown[]) =>
        traceOperation(serviceName, `${type} ${String(name)}`, { "proxy.id": typeof args[0] === "string" ? args[0] : undefined }, () =>
          Promise.resolve(value.apply(target, args)),
        );
    },
  });
}

/** The API exchange as lines of a debug log (call-log.ts), for a client of the caller's own. */
export { callLog } from "./call-log";
