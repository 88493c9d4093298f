// Engine overhead: `pulumi up`, a no-change preview, refresh and destroy of N ProxyOrders against N no-op dynamic
// resources of the same shape (a ProxyOrder's properties, a real order's outputs and secrets: the goal), and
// against N no-ops of one property (for comparison), with the same CLI, backend and settings. The sandbox provisions
// at once, so the figure is this package's cost per resource, not the API's.
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { benchWorkspace } from "./workspace.mjs";

const NOOP_PROGRAM = `const pulumi = require("@pulumi/pulumi");
const config = new pulumi.Config();
const count = config.getNumber("count") ?? 1;
// "shape": a ProxyOrder's properties (the inputs set, with values, and the rest seeded undefined), and the file of a
// real ProxyOrder's outputs, which create returns with the same secrets: the engine's work per property, per byte of
// state and per secret then equals a ProxyOrder's, and the difference is this package's alone.
const shape = config.getObject("shape");
const outputsFile = shape ? shape.outputsFile : undefined;
const plain = {
  async create(inputs) { return { id: "noop-" + inputs.name, outs: inputs }; },
  async read(id, props) { return { id, props, inputs: props }; },
  async diff() { return { changes: false }; },
};
const shaped = {
  ...plain,
  async create(inputs) {
    return { id: "noop-" + inputs.name, outs: { ...JSON.parse(require("fs").readFileSync(outputsFile, "utf8")), ...inputs } };
  },
};
// Only the provider used is serialized into the state: the one-property no-op's stays the plain one.
const provider = outputsFile ? shaped : plain;
const props = shape ? { ...shape.set, ...Object.fromEntries(shape.unset.map((name) => [name, undefined])) } : {};
const opts = shape ? { additionalSecretOutputs: shape.secret } : {};
for (let i = 0; i < count; i++) new pulumi.dynamic.Resource(provider, "noop-" + i, { name: String(i), ...props }, opts);
`;

// The same loop over ProxyOrders: no stack outputs in either program, so the programs differ in the resource alone.
const ORDERS_PROGRAM = `const pulumi = require("@pulumi/pulumi");
const { ProxyOrder } = require("pulumi-proxy");
const count = new pulumi.Config().getNumber("count") ?? 1;
for (let i = 0; i < count; i++) new ProxyOrder("order-" + i, { planId: "dc-us-5", readyTimeout: "2m" });
`;

/**
 * A ProxyOrder's properties, from its definition: the inputs a program sets, with values, and the rest (its optional
 * inputs and its outputs) unset, as the resource's constructor passes them; and its secret outputs.
 */
function orderShape(root, outputsFile) {
  const { PROXY_ORDER } = createRequire(import.meta.url)(join(root, "dist", "provider", "index.js"));
  const example = { string: "x", boolean: true, integer: 1, number: 1 };
  const inputs = Object.entries(PROXY_ORDER.inputs);
  const set = inputs.filter(([, field]) => field.presence !== "optional");
  const unset = inputs.filter(([, field]) => field.presence === "optional").map(([name]) => name);
  return {
    set: Object.fromEntries(set.map(([name, field]) => [name, field.default ?? example[field.type]])),
    unset: [...unset, ...Object.keys(PROXY_ORDER.outputs)],
    secret: Object.entries(PROXY_ORDER.outputs).filter(([, field]) => field.secret).map(([name]) => name),
    outputsFile,
  };
}

/** The outputs of one ProxyOrder bought from the sandbox, secrets in plain text, without the serialized provider. */
async function realOrderOutputs(cli, dir) {
  await cli(dir, ["config", "set", "count", "1"]);
  await cli(dir, ["up", "--yes", "--skip-preview"]);
  const exported = JSON.parse(await cli(dir, ["stack", "export", "--show-secrets"]));
  await cli(dir, ["destroy", "--yes", "--skip-preview"]);
  const { __provider: _provider, ...outputs } = exported.deployment.resources.find((r) => r.type.endsWith(":ProxyOrder")).outputs;
  // A secret is exported as Pulumi's secret signature with its value as JSON text; the program marks it secret again.
  const plain = (value) => (value && typeof value === "object" && "plaintext" in value ? JSON.parse(value.plaintext) : value);
  return Object.fromEntries(Object.entries(outputs).map(([name, value]) => [name, plain(value)]));
}

/** The CLI steps timed for each program. */
const STEPS = {
  up: ["up", "--yes", "--skip-preview"],
  "no-change preview": ["preview", "--expect-no-changes"],
  refresh: ["refresh", "--yes", "--skip-preview"],
  destroy: ["destroy", "--yes", "--skip-preview"],
};

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** N resources of each program, each step timed `repeats` times, and our steps against the same-shape no-op's. */
async function engineCase(cli, programs, shape, { n, repeats }) {
  const times = { ours: {}, noop: {}, shaped: {} };
  for (const dir of Object.values(programs)) await cli(dir, ["config", "set", "count", String(n)]);
  // Interleaved, so that a slow spell of the machine falls on every program alike rather than on one.
  for (let r = 0; r < repeats; r++) {
    for (const [name, dir] of Object.entries(programs)) {
      for (const [step, args] of Object.entries(STEPS)) {
        const started = performance.now();
        await cli(dir, args);
        (times[name][step] ??= []).push(performance.now() - started);
      }
    }
  }
  // The goal is against a no-op of the same shape; the one-property no-op shows what the shape costs.
  const rows = Object.keys(STEPS).map((step) => {
    const ours = median(times.ours[step]);
    const shaped = median(times.shaped[step]);
    const ratio = ours / shaped;
    const said = `N = ${n}, ${step}: ${(ours / 1000).toFixed(1)} s vs a same-shape no-op ${(shaped / 1000).toFixed(1)} s`;
    return ["engine overhead", said, `${ratio.toFixed(2)}x`, "<= 1.2x", ratio <= 1.2 ? "met" : "missed"];
  });
  const bareRatios = Object.keys(STEPS).map((step) => (median(times.ours[step]) / median(times.noop[step])).toFixed(2) + "x");
  rows.push([
    "engine overhead, anchor",
    `N = ${n}, ${Object.keys(STEPS).join(" / ")} vs a no-op with one property (the same-shape no-op has ProxyOrder's ${Object.keys(shape.set).length + shape.unset.length} properties, a real order's outputs and its secrets)`,
    bareRatios.join(", "),
    "for comparison",
    "",
  ]);
  return rows;
}

/** The state's size: the serialized provider stored with each ProxyOrder, and a whole entry against a no-op's. */
async function stateSizes(cli, programs) {
  await cli(programs.ours, ["config", "set", "count", "1"]);
  await cli(programs.ours, ["up", "--yes", "--skip-preview"]);
  const exported = JSON.parse(await cli(programs.ours, ["stack", "export"]));
  const order = exported.deployment.resources.find((r) => r.type.endsWith(":ProxyOrder"));
  const size = String(order?.inputs?.__provider ?? "").length;
  // The whole entry matters too: the engine rewrites the state after every step, so it is paid N times per step.
  await cli(programs.noop, ["config", "set", "count", "1"]);
  await cli(programs.noop, ["up", "--yes", "--skip-preview"]);
  const noop = JSON.parse(await cli(programs.noop, ["stack", "export"])).deployment.resources.find((r) => r.type.startsWith("pulumi-nodejs:"));
  await cli(programs.ours, ["destroy", "--yes", "--skip-preview"]);
  await cli(programs.noop, ["destroy", "--yes", "--skip-preview"]);
  return [
    ["state size", "serialized provider per ProxyOrder (bytes)", String(size), "<= 8000", size <= 8000 ? "met" : "missed"],
    ["state size", "whole state entry: a ProxyOrder (5 proxies) vs a no-op resource (bytes)", `${JSON.stringify(order).length} vs ${JSON.stringify(noop).length}`, "for comparison", ""],
  ];
}

/**
 * The engine's overhead: our ProxyOrders' steps against no-op resources of the same shape, and the state's size.
 * @param sizes the values of N to measure
 */
export async function engineFigures(root, repeats, startSandbox, sizes = [1, 10, 50]) {
  const sandbox = await startSandbox({ provisioningMs: 0, rateLimit: false });
  const workspace = await benchWorkspace(root);
  const api = { PROXY_API_BASE_URL: sandbox.url, PROXY_API_KEY: sandbox.apiKey };
  const cli = (dir, args) => workspace.cli(dir, args, api);
  const programs = {
    ours: await workspace.program("bench-orders", ORDERS_PROGRAM),
    noop: await workspace.program("bench-noop", NOOP_PROGRAM),
    shaped: await workspace.program("bench-shaped", NOOP_PROGRAM),
  };
  const outputsFile = join(workspace.dir, "order-outputs.json");
  writeFileSync(outputsFile, JSON.stringify(await realOrderOutputs(cli, programs.ours)));
  const shape = orderShape(root, outputsFile);
  await cli(programs.shaped, ["config", "set", "shape", JSON.stringify(shape)]);
  const figures = [];
  try {
    for (const n of sizes) figures.push(...(await engineCase(cli, programs, shape, { n, repeats })));
    figures.push(...(await stateSizes(cli, programs)));
  } finally {
    await sandbox.stop();
    workspace.cleanup();
  }
  return figures;
}
