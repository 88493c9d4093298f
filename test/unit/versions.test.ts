/**
 * One version everywhere: the npm package, what the plugin reports and serves in its schema, every generated SDK,
 * the policy pack, and the plugin archives `npm run dist` names. Also one download location: the schema's, in every SDK.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { USER_AGENT, VERSION } from "../../client/version";
import { schemaText } from "../../plugin/schema";
import { REPO_ROOT } from "../helpers/pulumi";

const read = (...path: string[]) => readFileSync(join(REPO_ROOT, ...path), "utf8");
const json = (...path: string[]) => JSON.parse(read(...path)) as Record<string, unknown>;
const version = (json("package.json") as { version: string }).version;
const schema = JSON.parse(schemaText()) as { version: string; pluginDownloadURL: string };

describe("one version everywhere", () => {
  it("the plugin reports the npm package's version, sends it as its User-Agent, and serves it in the schema", () => {
    expect(VERSION).toBe(version);
    expect(USER_AGENT).toBe(`pulumi-proxy/${version}`);
    expect(schema.version).toBe(version);
  });

  it("every generated SDK carries that version and the schema's plugin download location", () => {
    const manifests = {
      python: json("sdk", "python", "pulumi_proxy", "pulumi-plugin.json"),
      go: json("sdk", "go", "proxy", "pulumi-plugin.json"),
      dotnet: json("sdk", "dotnet", "pulumi-plugin.json"),
      nodejs: (json("sdk", "nodejs", "package.json") as { pulumi: Record<string, unknown> }).pulumi,
    };
    for (const [language, manifest] of Object.entries(manifests)) {
      expect(manifest, language).toEqual({ resource: true, name: "proxy", version, server: schema.pluginDownloadURL });
    }
    expect(json("sdk", "nodejs", "package.json").version).toBe(version);
    expect(read("sdk", "python", "pyproject.toml")).toMatch(new RegExp(`^\\s*version = "${version.replace(/\./g, "\\.")}"$`, "m"));
    expect(read("sdk", "dotnet", "PulumiProxy.Proxy.csproj")).toContain(`<Version>${version}</Version>`);
    expect(read("sdk", "dotnet", "version.txt").trim()).toBe(version);
    expect(read("sdk", "go", "proxy", "internal", "pulumiUtilities.go")).toContain(`semver.MustParse("${version}")`);
  });

  it("the policy pack the package ships carries that version", () => {
    expect(json("policy-pack", "package.json").version).toBe(version);
    expect(read("policy-pack", "PulumiPolicy.yaml")).toMatch(new RegExp(`^version: ${version.replace(/\./g, "\\.")}$`, "m"));
  });
});
