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
      // The engine's log (engine-log.ts), for the plugin and the dynamic host's debug log.
      "@grpc/grpc-js",
      "@pulumi/pulumi/proto/engine_grpc_pb",
      "@pulumi/pulumi/proto/engine_pb",
    ],
  },
  health: { parts: ["health"], packages: [] },
  provider: { parts: ["contract", "client", "health", "tracing", "provider"], packages: ["@pulumi/pulumi", "@pulumi/pulumi/runtime/rpc", "zod", "pulumi-proxy/provider"] },
  check: { parts: ["contract", "client", "health", "provider", "check"], packages: [] },
  "dynamic-sdk": {
    parts: ["contract", "client", "health", "tracing", "provider", "dynamic-sdk"],
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

/** Users' programs shown in the docs (plugin/examples/): they import the published SDK, not the package's parts. */
const USER_PROGRAMS = join(REPO_ROOT, "plugin", "examples");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (path === USER_PROGRAMS) return [];
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
 * The parts other parts import, each through its front file (`<part>/index.ts`) alone: a part's other files are its
 * insides, free to move. The dynamic host's entry (provider/host.ts) is loaded by the package's name, never imported.
 * contract/ has two more doors, for what is typed with zod: the wire schemas and the OpenAPI document made from them
 * (its index stays free of zod, so that the published declarations reach no zod type: the check below).
 */
const DOORS: Record<string, string[]> = {
  contract: ["contract", "contract/wire", "contract/openapi"],
  client: ["client"],
  tracing: ["tracing"],
  health: ["health"],
  provider: ["provider"],
  check: ["check"],
  sandbox: ["sandbox"],
};

describe("front files", () => {
  it("every part others import has one, and no import reaches past it", () => {
    const problems: string[] = [];
    for (const part of Object.keys(PARTS)) {
      for (const file of sourceFiles(join(REPO_ROOT, part))) {
        for (const spec of specifiers(readFileSync(file, "utf8")).filter((s) => s.startsWith("."))) {
          const target = relative(REPO_ROOT, resolve(dirname(file), spec));
          const targetPart = target.split("/")[0] ?? "";
          if (targetPart === part) continue;
          if (!(DOORS[targetPart] ?? []).includes(target)) problems.push(`${relative(REPO_ROOT, file)} imports ${spec}: import ${targetPart}/ by its front file`);
        }
      }
    }
    expect(problems).toEqual([]);
    expect(Object.keys(DOORS).filter((part) => !existsSync(join(REPO_ROOT, part, "index.ts")))).toEqual([]);
  });

  it("bench/ and scripts/ read the built package (dist/) through the same front files", () => {
    const reaches: string[] = [];
    for (const dir of ["bench", "scripts"]) {
      for (const entry of readdirSync(join(REPO_ROOT, dir)).filter((name) => name.endsWith(".mjs"))) {
        const text = readFileSync(join(REPO_ROOT, dir, entry), "utf8");
        for (const m of text.matchAll(/join\(root, "dist", ((?:"[^"]+",? ?)+)\)/g)) {
          const path = [...(m[1] ?? "").matchAll(/"([^"]+)"/g)].map((p) => p[1]).join("/").replace(/\.js$/, "");
          const [part = "", ...rest] = path.split("/");
          const door = rest.length === 1 && rest[0] === "index" ? part : path;
          if (!(DOORS[part] ?? [part]).includes(door)) reaches.push(`${dir}/${entry} reads dist/${path}.js`);
        }
      }
    }
    expect(reaches).toEqual([]);
  });
});

/**
 * provider/'s folders, from the bottom: a file imports only from its own folder and those below. So what the state
 * holds never reaches the requests, the decisions never reach the engine's methods, and a new file must be placed. The
 * files directly in provider/ (the entry) come last.
 */
const PROVIDER_FOLDERS = [
  { folder: "shared", files: ["duration", "messages", "pulumi-host"] },
  { folder: "schema", files: ["fields", "definitions", "inputs", "health-input"] },
  { folder: "state", files: ["order-state", "fleet-state", "origin", "idempotency", "renewal"] },
  { folder: "api", files: ["account", "listing", "order-proxies", "provisioning", "rate-limit-report", "purchase", "wait", "absence"] },
  { folder: "core", files: ["provider-core", "config", "health-check"] },
  { folder: "order", files: ["order-provider", "order-plan", "settle"] },
  { folder: "fleet", files: ["fleet-provider", "fleet-plan", "fleet-progress", "settle"] },
  { folder: "entry", files: ["index", "host", "functions"] },
];

/** A folder's directory: the entry's files sit in provider/ itself. */
const folderPath = (folder: string) => join(REPO_ROOT, "provider", folder === "entry" ? "" : folder);

/** A folder holds at most this many files, so that each reads as one concern. */
const MAX_FOLDER_FILES = 12;

describe("inside provider/", () => {
  const levelOf = new Map(PROVIDER_FOLDERS.map(({ folder }, i) => [folderPath(folder), i] as const));

  it("every folder holds the files drawn for it, and no more than a dozen", () => {
    const actual = PROVIDER_FOLDERS.map(({ folder }) =>
      readdirSync(folderPath(folder), { withFileTypes: true })
        .filter((e) => e.isFile() && e.name.endsWith(".ts"))
        .map((e) => e.name.replace(/\.ts$/, ""))
        .sort(),
    );
    expect(actual).toEqual(PROVIDER_FOLDERS.map(({ files }) => [...files].sort()));
    const folders = readdirSync(join(REPO_ROOT, "provider"), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
    expect(folders.sort()).toEqual(PROVIDER_FOLDERS.map(({ folder }) => folder).filter((f) => f !== "entry").sort());
    expect(PROVIDER_FOLDERS.filter(({ files }) => files.length > MAX_FOLDER_FILES)).toEqual([]);
  });

  it("a file imports only from its own folder and those below (the decisions never import the engine's methods)", () => {
    const problems: string[] = [];
    PROVIDER_FOLDERS.forEach(({ folder, files }, level) => {
      for (const file of files) {
        const path = join(folderPath(folder), `${file}.ts`);
        for (const spec of specifiers(readFileSync(path, "utf8")).filter((s) => s.startsWith("."))) {
          const target = dirname(resolve(dirname(path), spec));
          const targetLevel = levelOf.get(target) ?? -1;
          if (targetLevel > level) problems.push(`provider/${folder}/${file} imports ${spec} (${PROVIDER_FOLDERS[targetLevel]?.folder})`);
        }
      }
    });
    expect(problems).toEqual([]);
  });
});

describe("docs/contributing/architecture.md", () => {
  it("draws provider/'s folders as this test holds them", () => {
    const text = readFileSync(join(REPO_ROOT, "docs", "contributing", "architecture.md"), "utf8");
    // The lines after the heading's blank line, up to the next blank line: a folder's name, then its files, then what
    // it is in parentheses.
    const drawn = text.split("inside provider/, from the bottom")[1]?.split("\n\n")[1]?.split("\n") ?? [];
    const sorted = (files: string[]) => [...files].sort();
    const folders = drawn.map((line) => line.replace(/\(.*\)\s*$/, "").trim().split(/\s{2,}/));
    expect(folders.map((words) => words[0]?.replace(/\/$/, ""))).toEqual(PROVIDER_FOLDERS.map((f) => f.folder));
    expect(folders.map((words) => sorted(words.slice(1)))).toEqual(PROVIDER_FOLDERS.map((f) => sorted(f.files)));
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
  it("no function outside the tests spans more than 60 lines, bench/ and scripts/ included (a factory that holds methods counts whole)", () => {
    const scripts = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) return scripts(path);
        return /\.(mjs|js)$/.test(entry.name) ? [path] : [];
      });
    const files = [
      ...Object.keys(PARTS).flatMap((part) => sourceFiles(join(REPO_ROOT, part))),
      ...["bench", "scripts", "bin", "policy-pack"].flatMap((dir) => scripts(join(REPO_ROOT, dir))),
    ];
    expect(files.length).toBeGreaterThan(100);
    expect(files.flatMap((file) => longFunctions(file, 60))).toEqual([]);
  });

  it("the pacing is at most ten rules, listed at the top of client/pace.ts, in at most 250 lines of code (issue 73)", () => {
    const pace = readFileSync(join(REPO_ROOT, "client", "pace.ts"), "utf8");
    const header = pace.slice(0, pace.indexOf("*/"));
    const rules = [...header.matchAll(/^ \* (\d+)\. \*\*/gm)].map((m) => Number(m[1]));
    expect(rules).toEqual(rules.map((_, i) => i + 1));
    expect(rules.length).toBeGreaterThan(0);
    expect(rules.length).toBeLessThanOrEqual(10);
    // Lines that hold code, comments and blank lines aside: the model and the loop that serves it (the queue of held
    // requests and the summaries it reports are concerns of their own, beside it).
    const codeLines = (file: string) => {
      const text = readFileSync(join(REPO_ROOT, "client", file), "utf8");
      const scanner = ts.createScanner(ts.ScriptTarget.Latest, true, ts.LanguageVariant.Standard, text);
      const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest);
      const lines = new Set<number>();
      while (scanner.scan() !== ts.SyntaxKind.EndOfFileToken) lines.add(source.getLineAndCharacterOfPosition(scanner.getTokenStart()).line);
      return lines.size;
    };
    expect(codeLines("pace.ts") + codeLines("budget.ts")).toBeLessThanOrEqual(250);
  });

  it("Retry-After and the rate-limit hints are read in contract/rate-limit.ts alone (the sandbox, which writes them, aside)", () => {
    const reads = /headers(?:\[["'](?:retry-after|ratelimit|x-rate-?limit)|\.get\(["'](?:retry-after|ratelimit|x-rate-?limit))/i;
    const files = Object.keys(PARTS)
      .filter((part) => part !== "sandbox")
      .flatMap((part) => sourceFiles(join(REPO_ROOT, part)))
      .filter((file) => relative(REPO_ROOT, file) !== join("contract", "rate-limit.ts"));
    expect(files.length).toBeGreaterThan(50);
    expect(files.filter((file) => reads.test(readFileSync(file, "utf8"))).map((file) => relative(REPO_ROOT, file))).toEqual([]);
  });

  it("plugin/ takes the engine's values as the core's types without casting through unknown", () => {
    const casts = sourceFiles(join(REPO_ROOT, "plugin")).filter((file) => /as unknown as/.test(readFileSync(file, "utf8")));
    expect(casts.map((file) => relative(REPO_ROOT, file))).toEqual([]);
  });
});

describe("the published type declarations", () => {
  it("reach neither zod nor undici from any entry point", () => {
    const entries = ["dist/dynamic-sdk/index.d.ts", "dist/provider/host.d.ts", "dist/sandbox/index.d.ts", "dist/policy/index.d.ts"].map((p) => join(REPO_ROOT, p));
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
