/**
 * `pulumi up --otel-traces file://...` with the real CLI, through the plugin and through the dynamic provider: every
 * request the sandbox received is a span in the file (by its request id), under the operation that made it, with the
 * waits for the rate limit shown; the plugin's operations under the engine's own spans.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Sandbox } from "../../sandbox";
import { installPluginWithoutNode } from "../helpers/plugin-archive";
import { useStack } from "../helpers/stack";

/** One span of the file, as far as these tests read it. */
interface FileSpan {
  service: string;
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: Record<string, string>;
}

/** The spans of an OTLP JSON file as the CLI writes it (one export request per line). */
function spansOf(file: string): FileSpan[] {
  const spans: FileSpan[] = [];
  for (const line of readFileSync(file, "utf8").trim().split("\n")) {
    const request = JSON.parse(line) as {
      resourceSpans: Array<{
        resource: { attributes: Array<{ key: string; value: Record<string, unknown> }> };
        scopeSpans: Array<{ spans: Array<Omit<FileSpan, "service" | "attributes"> & { attributes?: Array<{ key: string; value: Record<string, unknown> }> }> }>;
      }>;
    };
    for (const resource of request.resourceSpans) {
      const service = String(Object.values(resource.resource.attributes.find((a) => a.key === "service.name")?.value ?? {})[0] ?? "");
      for (const scope of resource.scopeSpans) {
        for (const span of scope.spans) {
          const attributes = Object.fromEntries((span.attributes ?? []).map((a) => [a.key, String(Object.values(a.value)[0])]));
          spans.push({ service, name: span.name, traceId: span.traceId, spanId: span.spanId, parentSpanId: span.parentSpanId || undefined, attributes });
        }
      }
    }
  }
  return spans;
}

/** The provider's spans of every `/v1` request the sandbox answered, and the chain of parents above each. */
function requestSpans(sandbox: Sandbox, spans: FileSpan[], service: string) {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const ancestors = (span: FileSpan): FileSpan[] => {
    const chain: FileSpan[] = [];
    for (let at = span.parentSpanId && byId.get(span.parentSpanId); at; at = at.parentSpanId && byId.get(at.parentSpanId)) chain.push(at);
    return chain;
  };
  const ours = spans.filter((s) => s.service === service);
  const calls = ours.filter((s) => s.attributes["url.path"] !== undefined);
  const answered = sandbox.requests.filter((r) => r.path.startsWith("/v1/") && r.status !== 0);
  const unmatched = answered.filter((r) => !ours.some((s) => s.attributes["proxy.request_id"] === r.requestId)).map((r) => `${r.method} ${r.path}`);
  return { ours, calls, answered, unmatched, ancestors };
}

describe("traces through the plugin (real CLI, YAML program)", () => {
  // One request a second: after the first answer the hints say so, and later requests wait their turn.
  const stack = useStack("test/e2e/programs/plugin-fleet", {
    stack: "traced",
    sandbox: { provisioningMs: 500, rateLimit: { requestsPerSecond: 1, burst: 1 } },
    prepare: installPluginWithoutNode,
  });

  it("holds a span for every API request, under the plugin's Create, under the engine's call, with the waits", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "proxy-traces-")), "trace.json");
    await stack.program.up("--otel-traces", `file://${file}`);
    const spans = spansOf(file);
    const { ours, calls, answered, unmatched, ancestors } = requestSpans(stack.sandbox, spans, "pulumi-resource-proxy");
    expect(answered.length).toBeGreaterThanOrEqual(6);
    expect(unmatched).toEqual([]);

    const create = ours.find((s) => s.name === "/pulumirpc.ResourceProvider/Create");
    expect(create?.attributes["pulumi.urn"]).toMatch(/::fleet$/);
    // The engine's span for the call is the plugin's parent, in the engine's trace.
    const engineParent = spans.find((s) => s.spanId === create?.parentSpanId);
    expect(engineParent?.service).toBe("pulumi-cli");
    expect(engineParent?.traceId).toBe(create?.traceId);
    for (const call of calls.filter((c) => c.attributes["http.request.method"] === "POST")) {
      expect(ancestors(call).map((s) => s.name)).toEqual([expect.stringMatching(/^member \d$/), create?.name, engineParent?.name, ...ancestors(engineParent as FileSpan).map((s) => s.name)]);
    }
    const waits = ours.filter((s) => s.name === "rate limit wait");
    expect(waits.length).toBeGreaterThan(0);
    for (const wait of waits) expect(calls.some((c) => c.spanId === wait.parentSpanId)).toBe(true);
  }, 600_000);
});

describe("traces through the dynamic provider (real CLI, Node program)", () => {
  const stack = useStack("test/e2e/programs/proxy-fleet", {
    stack: "traced",
    sandbox: { provisioningMs: 500, rateLimit: { requestsPerSecond: 1, burst: 1 } },
  });

  it("holds a span for every API request, under the fleet's create and its member, with the waits", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "proxy-traces-")), "trace.json");
    await stack.program.up("--otel-traces", `file://${file}`);
    const { ours, calls, answered, unmatched, ancestors } = requestSpans(stack.sandbox, spansOf(file), "pulumi-proxy (dynamic provider)");
    expect(answered.length).toBeGreaterThanOrEqual(6);
    expect(unmatched).toEqual([]);
    for (const call of calls.filter((c) => c.attributes["http.request.method"] === "POST")) {
      // The dynamic host hands no trace context to its providers: the operation starts a trace of its own.
      expect(ancestors(call).map((s) => s.name)).toEqual([expect.stringMatching(/^member \d$/), "proxy:ProxyFleet create"]);
    }
    expect(ours.filter((s) => s.name === "rate limit wait").length).toBeGreaterThan(0);
  }, 600_000);
});
