/**
 * The plugin's Pulumi package schema, made from the descriptions of provider/schema/definitions.ts. `npm run gen` writes
 * it to plugin/schema.json, from which the SDKs of every language are generated; a test fails when the committed file
 * is not what this makes.
 */
import {
  type Fields,
  type FieldSpec,
  FUNCTIONS,
  type FunctionSpec,
  OBJECT_TYPES,
  PROVIDER_SETTINGS,
  RESOURCES,
  type ResourceSpec,
} from "../provider";
import { examplesSection } from "./schema-examples";

/** What the package says of itself, and how each language's SDK is named. */
const PACKAGE = {
  name: "proxy",
  displayName: "Proxy",
  description: "Buy and manage proxies through the Proxy Provisioning API.",
  keywords: ["pulumi", "proxy", "category/network", "kind/native"],
  homepage: "https://github.com/pulumi-proxy/pulumi-proxy#readme",
  license: "Apache-2.0",
  pluginDownloadURL: "github://api.github.com/pulumi-proxy/pulumi-proxy",
  repository: "https://github.com/pulumi-proxy/pulumi-proxy",
  publisher: "pulumi-proxy",
  meta: { moduleFormat: "(.*)" },
};

const LANGUAGE = {
  nodejs: {
    packageName: "@pulumi-proxy/proxy",
    packageDescription: "Proxy Provisioning API resources for Pulumi (provider plugin SDK).",
    dependencies: { "@pulumi/pulumi": "^3.142.0" },
    respectSchemaVersion: true,
  },
  python: { packageName: "pulumi_proxy", requires: { pulumi: ">=3.142.0,<4.0.0" }, pyproject: { enabled: true }, respectSchemaVersion: true },
  go: {
    importBasePath: "github.com/pulumi-proxy/pulumi-proxy/sdk/go/proxy",
    generateResourceContainerTypes: true,
    respectSchemaVersion: true,
  },
  csharp: { rootNamespace: "PulumiProxy", packageReferences: { Pulumi: "3.*" }, respectSchemaVersion: true },
};

const SCALARS = new Set(["string", "boolean", "integer", "number"]);

/** A field's type in the schema: a scalar, a reference to an object type, or an array of either. */
function typeOf(name: string): Record<string, unknown> {
  if (name.endsWith("[]")) return { type: "array", items: typeOf(name.slice(0, -2)) };
  if (SCALARS.has(name)) return { type: name };
  const objectType = (OBJECT_TYPES as Record<string, { token: string }>)[name];
  if (!objectType) throw new Error(`definitions.ts: no object type "${name}"`);
  return { $ref: `#/types/${objectType.token}` };
}

function property(spec: FieldSpec): Record<string, unknown> {
  return {
    ...typeOf(spec.type),
    ...(spec.secret ? { secret: true } : {}),
    description: spec.description,
    ...(spec.default === undefined ? {} : { default: spec.default }),
  };
}

function properties(fields: Fields): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).map(([name, spec]) => [name, property(spec)]));
}

/** Names of the fields present in `presences`. */
function named(fields: Fields, presences: string[]): string[] {
  return Object.entries(fields)
    .filter(([, spec]) => presences.includes(spec.presence ?? "required"))
    .map(([name]) => name);
}

/** `required` when any property is, as the schema leaves it out otherwise. */
function required(names: string[]): { required?: string[] } {
  return names.length > 0 ? { required: names } : {};
}

function resource(spec: ResourceSpec, root: string): Record<string, unknown> {
  const examples = examplesSection(root, spec.token.split(":").pop() ?? "");
  return {
    description: `${spec.description} ${spec.importing}${examples ? `\n\n${examples}` : ""}`,
    inputProperties: properties(spec.inputs),
    requiredInputs: named(spec.inputs, ["required"]),
    properties: { ...properties(spec.inputs), ...properties(spec.outputs) },
    required: [...named(spec.inputs, ["required", "defaulted"]), ...named(spec.outputs, ["required", "defaulted"])],
  };
}

function invoke(spec: FunctionSpec): Record<string, unknown> {
  return {
    description: spec.description,
    ...(spec.inputs ? { inputs: { properties: properties(spec.inputs), ...required(named(spec.inputs, ["required"])) } } : {}),
    outputs: { properties: properties(spec.outputs), ...required(named(spec.outputs, ["required"])) },
  };
}

/** The object types by token; a TypeScript variant of one (a fleet's proxy) shares its token and is written once. */
function objectTypes(): Record<string, unknown> {
  const types: Record<string, unknown> = {};
  for (const spec of Object.values(OBJECT_TYPES)) {
    types[spec.token] ??= {
      type: "object",
      description: spec.description,
      properties: properties(spec.properties),
      ...required(named(spec.properties, ["required"])),
    };
  }
  return types;
}

/** The package schema, without its version (the plugin adds the package's own), with the examples under `root`. */
export function buildSchema(root: string): Record<string, unknown> {
  return {
    ...PACKAGE,
    config: { variables: properties(PROVIDER_SETTINGS.inputs) },
    provider: { description: PROVIDER_SETTINGS.description, inputProperties: properties(PROVIDER_SETTINGS.inputs) },
    types: objectTypes(),
    resources: Object.fromEntries(RESOURCES.map((spec) => [spec.token, resource(spec, root)])),
    functions: Object.fromEntries(FUNCTIONS.map((spec) => [spec.token, invoke(spec)])),
    language: LANGUAGE,
  };
}

/** The text of plugin/schema.json, from the repository at `root`. */
export function schemaFileText(root: string): string {
  return `${JSON.stringify(buildSchema(root), null, 2)}\n`;
}
