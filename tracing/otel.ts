/**
 * The OpenTelemetry side of tracing/index.ts, loaded only when the engine asks for traces. It uses the SDK and the
 * OTLP gRPC exporter that @pulumi/pulumi itself depends on (the same packages and versions), and tells the client's
 * tracer interface (client/trace.ts) how to make spans: one per API call, with a child per attempt, per wait for the
 * rate limit and per back-off before a retry.
 */
import { context, propagation, SpanKind, SpanStatusCode, trace, type Attributes, type Span } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-grpc";
import { Resource } from "@opentelemetry/resources";
import { BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { type CallOutcome, type CallTrace, type CallTracer, VERSION } from "../client";
import type { ProcessTracing, SpanAttributes } from "./types";

/** Registers the SDK with an exporter to the engine's collector at `endpoint` (host:port); makes the clients' tracer. */
export function startTracing(serviceName: string, endpoint: string): ProcessTracing {
  const provider = new NodeTracerProvider({ resource: new Resource({ "service.name": serviceName, "service.version": VERSION }) });
  provider.addSpanProcessor(new BatchSpanProcessor(new OTLPTraceExporter({ url: endpoint.includes("://") ? endpoint : `http://${endpoint}` })));
  provider.register({ propagator: new W3CTraceContextPropagator() });
  const tracer = trace.getTracer("pulumi-proxy", VERSION);

  const calls: CallTracer = {
    call(method, path, orderId): CallTrace {
      const span = tracer.startSpan(`${method} ${path.replace(/\/orders\/[^/?]+/, "/orders/{id}")}`, {
        kind: SpanKind.CLIENT,
        attributes: clean({ "http.request.method": method, "url.path": path, "proxy.order_id": orderId }),
      });
      const under = trace.setSpan(context.active(), span);
      const child = (name: string, start: number, end: number, attributes: SpanAttributes): void => {
        tracer.startSpan(name, { startTime: start, attributes: clean(attributes) }, under).end(end);
      };
      return {
        held(heldMs) {
          const now = Date.now();
          child("rate limit wait", now - heldMs, now, { "proxy.held_ms": heldMs });
        },
        attempt(attempt) {
          const sent = tracer.startSpan(`${method} attempt ${attempt}`, { kind: SpanKind.CLIENT, attributes: { "http.request.resend_count": attempt - 1 } }, under);
          return { end: (outcome) => finish(sent, outcome) };
        },
        backoff(delayMs, outcome) {
          const now = Date.now();
          child("retry back-off", now, now + delayMs, { "proxy.delay_ms": delayMs, "proxy.after_status": outcome.status, "proxy.after_code": outcome.code });
        },
        end: (outcome) => finish(span, outcome),
      };
    },
  };

  return {
    calls,
    inSpan(name, attributes, fn, traceparent) {
      const parent = traceparent ? propagation.extract(context.active(), { traceparent }) : context.active();
      const span = tracer.startSpan(name, { kind: traceparent ? SpanKind.SERVER : SpanKind.INTERNAL, attributes: clean(attributes) }, parent);
      return context.with(trace.setSpan(parent, span), async () => {
        try {
          return await fn();
        } catch (error) {
          span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
          throw error;
        } finally {
          span.end();
        }
      });
    },
    flush: () => provider.forceFlush(),
  };
}

/** Records how an attempt or call ended on its span, and ends it. */
function finish(span: Span, outcome: CallOutcome): void {
  span.setAttributes(clean({ "http.response.status_code": outcome.status, "proxy.request_id": outcome.requestId, "error.type": outcome.code }));
  if (outcome.code !== undefined || (outcome.status ?? 0) >= 400) span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.code ?? String(outcome.status) });
  span.end();
}

/** The attributes without the undefined ones (OpenTelemetry drops them, with a warning). */
function clean(attributes: SpanAttributes): Attributes {
  return Object.fromEntries(Object.entries(attributes).filter(([, value]) => value !== undefined)) as Attributes;
}
