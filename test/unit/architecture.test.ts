/**
 * The dependency rule: contract <- client <- provider <- dynamic-sdk and plugin, and contract <- sandbox; policy stands
 * alone (the spend guard knows the resources by their type tokens, which test/unit/spend-guard.test.ts keeps true). Each part may import only
 * from the parts on its left (and itself), and only the outside packages listed for it. A second check walks the
 * published type declarations from the package's entry points and fails if they reach zod or undici: users'
 * type checks must not depend on our dependencies' types.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/pulumi";

const PARTS = {
  contract: { parts: ["contract"], packages: ["zod"] },
  client: { parts: ["contract", "client"], packages: ["undici"] },
  provider: { parts: ["contract", "client", "provider"], packages: ["@pulumi/pulumi", "@pulumi/pulumi/runtime/rpc", "zod"] },
  "dynamic-sdk": {
    parts: ["contract", "client", "provider", "dynamic-sdk"],
    packages: ["@pulumi/pulumi", "@pulumi/pulumi/runtime/mocks", "pulumi-proxy/provider"],
  },
  plugin: {
    parts: ["contract", "client", "provider", "plugin"],
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
