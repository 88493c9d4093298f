/**
 * The dependency rule: contract <- client <- tracing <- provider <- check (the contract check) <- plugin,
 * provider <- dynamic-sdk, health (the checks through the proxies, on Node alone) <- provider, and contract <- sandbox;
 * policy stands
 * alone (the spend guard knows the resources by their type tokens, which test/unit/spend-guard.test.ts keeps true). Each part may import only
 * from the parts on its left (and itself), and only the outside packages listed for it. A second check walks the
 * published type declarations from the package's entry points and fails if they reach zod or undici: users'
 * type checks must not depend on our dependencies' types.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/pulumi";

const PARTS = {
  contract: { parts: ["contract"], packages: ["zod"] },
  client: { parts: ["contract", "client"], packages: ["undici"] },
  // `pulumi-proxy/provider`: the one-line provider the state stores (pulumi-host.ts) loads this part by its name.
  tracing: {
    parts: ["client", "tracing"],
    packages: [
      "@opentelemetry/api",
      "@opentelemetry/core",
      "@opentelemetry/exporter-trace-otlp-grpc",
      "@opentelemetry/resources",
      "@opentelemetry/sdk-trace-base",
      "@opentelemetry/sdk-trace-node",
    ],
  },
  health: { parts: ["health"], packages: [] },
  provider: { parts: ["contract", "client", "health", "tracing", "provider"], packages: ["@pulumi/pulumi", "@pulumi/pulumi/runtime/rpc", "zod", "pulumi-proxy/provider"] },
  check: { parts: ["contract", "client", "health", "provider", "check"], packages: [] },
  "dynamic-sdk": {
    parts: ["contract", "client", "health", "provider", "dynamic-sdk"],
    packages: ["@pulumi/pulumi", "@pulumi/pulumi/runtime/mocks", "pulumi-proxy/provider"],
  },
  plugin: {
    parts: ["contract", "client", "health", "tracing", "provider", "check", "plugin"],
    packages: [
      "@grpc/grpc-js",
      "@pulumi/pulumi/runtime/rpc",
      "@pulumi/pulumi/proto/engine_grpc_pb",
      "@pulumi/pulumi/proto/engine_pb",
      "@pulumi/pulumi/proto/plugin_pb",
      "@pulumi/pulumi/proto/provider_grpc_pb",
      "@pulumi/pulumi/proto/provider_pb",
      "@pulumi/pulumi/proto/status_pb",
      "google-protobuf/google/protobuf/any_pb",
      "google-protobuf/google/protobuf/empty_pb",
      "google-protobuf/google/protobuf/struct_pb",
    ],
  },
  sandbox: { parts: ["contract", "sandbox"], packages: [] },
  policy: { parts: ["policy"], packages: [] },
} as const;

const BUILTINS = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|d\.ts)$/.test(entry.name) ? [path] : [];
  });
}

/** Every module specifier a file imports, requires or re-exports. */
function specifiers(text: string): string[] {
  const found = [...text.matchAll(/(?:from\s+|import\s*\(\s*|require\(\s*|import\s+)["']([^"']+)["']/g)].map((m) => m[1] ?? "");
  return [...new Set(found)];
}

describe("the dependency rule", () => {
  for (const [part, allowed] of Object.entries(PARTS)) {
    it(`${part}/ imports only ${[...allowed.parts].join(", ")}${allowed.packages.length ? ` and ${allowed.packages.join(", ")}` : ""}`, () => {
      const problems: string[] = [];
      for (const file of sourceFiles(join(REPO_ROOT, part))) {
        for (const spec of specifiers(readFileSync(file, "utf8"))) {
          if (spec.startsWith(".")) {
            const target = relative(REPO_ROOT, resolve(dirname(file), spec)).split("/")[0] ?? "";
            if (!(allowed.parts as readonly string[]).includes(target)) problems.push(`${relative(REPO_ROOT, file)} imports ${spec} (${target}/)`);
          } else if (!BUILTINS.has(spec) && !(allowed.packages as readonly string[]).includes(spec)) {
            problems.push(`${relative(REPO_ROOT, file)} imports the package ${spec}`);
          }
        }
      }
      expect(problems).toEqual([]);
    });
  }
});

/**
 * The order of the files inside provider/, from the bottom: a file imports only from its own layer and those below.
 * So the decisions (what to buy, replace, keep, say) never reach the engine's methods, and a new file must be placed.
 */
const PROVIDER_LAYERS = [
  { layer: "foundations", files: ["duration", "fields", "idempotency", "config", "absence", "messages", "origin", "provisioning"] },
  { layer: "domain rules", files: ["renewal", "health", "inputs", "rate-limit-report", "wait", "pulumi-host"] },
  { layer: "shapes and flows", files: ["definitions", "order-state", "fleet-state", "functions", "listing", "account", "fleet-progress", "purchase"] },
  { layer: "decisions", files: ["order-plan", "fleet-plan", "settle"] },
  { layer: "the core the lifecycles share", files: ["provider-core"] },
  { layer: "the engine's methods", files: ["order-provider", "fleet-provider"] },
  { layer: "the module the stored provider loads", files: ["index"] },
];

describe("inside provider/", () => {
  const layerOf = new Map(PROVIDER_LAYERS.flatMap(({ files }, i) => files.map((f) => [f, i] as const)));

  it("every file has a place in the layers", () => {
    const files = readdirSync(join(REPO_ROOT, "provider")).filter((f) => f.endsWith(".ts")).map((f) => f.replace(/\.ts$/, ""));
    expect(files.filter((f) => !layerOf.has(f))).toEqual([]);
  });

  it("a file imports only from its own layer and those below (decisions never import the engine's methods)", () => {
    const problems: string[] = [];
    for (const [file, layer] of layerOf) {
      const text = readFileSync(join(REPO_ROOT, "provider", `${file}.ts`), "utf8");
      for (const spec of specifiers(text).filter((s) => s.startsWith("./"))) {
        const target = layerOf.get(spec.slice(2)) ?? -1;
        if (target > layer) problems.push(`${file} (${PROVIDER_LAYERS[layer]?.layer}) imports ${spec} (${PROVIDER_LAYERS[target]?.layer})`);
      }
    }
    expect(problems).toEqual([]);
  });
});

describe("docs/contributing/architecture.md", () => {
  it("draws provider/'s layers as this test holds them", () => {
    const text = readFileSync(join(REPO_ROOT, "docs", "contributing", "architecture.md"), "utf8");
    // The lines after the heading's blank line, up to the next blank line: a layer's short name, then its files, then
    // what it is in parentheses.
    const drawn = text.split("inside provider/, from the bottom")[1]?.split("\n\n")[1]?.split("\n") ?? [];
    const sorted = (files: string[]) => [...files].sort();
    const files = drawn.map((line) => sorted(line.replace(/\(.*\)\s*$/, "").trim().split(/\s{2,}/).slice(1)));
    expect(files).toEqual(PROVIDER_LAYERS.map((l) => sorted(l.files)));
  });
});

describe("no import cycles", () => {
  it("no file imports, through any chain, a file that imports it", () => {
    const files = Object.keys(PARTS).flatMap((part) => sourceFiles(join(REPO_ROOT, part)));
    const imports = new Map(
      files.map((file) => {
        const targets = specifiers(readFileSync(file, "utf8"))
          .filter((spec) => spec.startsWith("."))
          .map((spec) => [`${resolve(dirname(file), spec)}.ts`, join(resolve(dirname(file), spec), "index.ts")].find(existsSync) ?? "");
        return [file, targets.filter(Boolean)] as const;
      }),
    );
    // Depth first: a file met again while its own imports are still being walked closes a cycle.
    const cycles: string[] = [];
    const state = new Map<string, "walking" | "done">();
    const walk = (file: string, path: string[]) => {
      if (state.get(file) === "walking") cycles.push([...path.slice(path.indexOf(file)), file].map((f) => relative(REPO_ROOT, f)).join(" -> "));
      if (state.has(file)) return;
      state.set(file, "walking");
      for (const next of imports.get(file) ?? []) walk(next, [...path, file]);
      state.set(file, "done");
    };
    files.forEach((file) => walk(file, []));
    expect(cycles).toEqual([]);
  });
});

/** The functions of `file` longer than `limit` lines, from first line to last, nested functions included. */
function longFunctions(file: string, limit: number): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const name = "name" in node && node.name ? node.name.getText() : "(anonymous)";
      if (last - first + 1 > limit) found.push(`${relative(REPO_ROOT, file)}:${first + 1} ${name} spans ${last - first + 1} lines`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("a shape a newcomer can change safely", () => {
  it("no function in provider/, plugin/, client/, check/, health/ or sandbox/ spans more than 60 lines (a factory that holds methods counts whole)", () => {
    const files = ["provider", "plugin", "client", "check", "health", "sandbox"].flatMap((part) => sourceFiles(join(REPO_ROOT, part)));
    expect(files.flatMap((file) => longFunctions(file, 60))).toEqual([]);
  });

  it("plugin/ takes the engine's values as the core's types without casting through unknown", () => {
    const casts = sourceFiles(join(REPO_ROOT, "plugin")).filter((file) => /as unknown as/.test(readFileSync(file, "utf8")));
    expect(casts.map((file) => relative(REPO_ROOT, file))).toEqual([]);
  });
});

describe("the published type declarations", () => {
  it("reach neither zod nor undici from any entry point", () => {
    const entries = ["dist/dynamic-sdk/index.d.ts", "dist/provider/index.d.ts", "dist/sandbox/index.d.ts", "dist/policy/index.d.ts"].map((p) => join(REPO_ROOT, p));
    expect(entries.filter((p) => !existsSync(p)), "run `npm run build` first (npm test does)").toEqual([]);
    const seen = new Set<string>();
    const leaks: string[] = [];
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const spec of specifiers(readFileSync(file, "utf8"))) {
        if (spec.startsWith(".")) {
          const base = resolve(dirname(file), spec);
          const next = [`${base}.d.ts`, join(base, "index.d.ts")].find(existsSync);
          if (next) visit(next);
        } else if (spec === "zod" || spec.startsWith("zod/") || spec === "undici") {
          leaks.push(`${relative(REPO_ROOT, file)} imports ${spec}`);
        }
      }
    };
    entries.forEach(visit);
    expect(leaks).toEqual([]);
    expect(seen.size).toBeGreaterThan(10);
  });
});
