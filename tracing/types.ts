/**
 * The shapes tracing/index.ts and the OpenTelemetry side (otel.ts) share, apart from both so that neither imports the
 * other's module.
 */
import type { CallTracer } from "../client";

/** Attributes of a span: what it serves (an order id, a slot, a resource type). */
export type SpanAttributes = Record<string, string | number | boolean | undefined>;

/** The tracing of this process, once the engine asked for it. */
export interface ProcessTracing {
  /** What the process's API clients tell of their calls: a span for each, under the span in force. */
  readonly calls: CallTracer;
  /** Runs `fn` in a span named `name`, a child of `traceparent` (W3C) if given, else of the span in force, if any. */
  inSpan<T>(name: string, attributes: SpanAttributes, fn: () => Promise<T>, traceparent?: string): Promise<T>;
  /** Sends the spans ended so far to the collector (before the engine, which may stop this process, is answered). */
  flush(): Promise<void>;
}
