// Engine overhead: `pulumi up`, a no-change preview, refresh and destroy of N ProxyOrders against the same N no-op
// dynamic resources, with the same CLI, backend and settings. The sandbox provisions at once, so the figure is this
// package's cost per resource, not the API's.
import { createRequire } from "node:module";
import { join } from "node:path";
import { benchWorkspace } from "./workspace.mjs";

const NOOP_PROGRAM = `const pulumi = require("@pulumi/pulumi");
const provider = {
  async create(inputs) { return { id: "noop-" + inputs.name, outs: inputs }; },
  async read(id, props) { return { id, props, inputs: props }; },
  async diff() { return { changes: false }; },
};
const config = new pulumi.Config();
const count = config.getNumber("count") ?? 1;
// "shape": the properties of a ProxyOrder (the inputs set, with values, and the rest seeded undefined), so that the
// engine's per-property work equals a ProxyOrder's and the difference is this package's alone.
const shape = config.getObject("shape");
const props = shape ? { ...shape.set, ...Object.fromEntries(shape.unset.map((name) => [name, undefined])) } : {};
for (let i = 0; i < count; i++) new pulumi.dynamic.Resource(provider, "noop-" + i, { name: String(i), ...props }, {});
`;

// The same loop over ProxyOrders: no stack outputs in either program, so the programs differ in the resource alone.
const ORDERS_PROGRAM = `const pulumi = require("@pulumi/pulumi");
const { ProxyOrder } = require("pulumi-proxy");
const count = new pulumi.Config().getNumber("count") ?? 1;
for (let i = 0; i < count; i++) new ProxyOrder("order-" + i, { planId: "dc-us-5", readyTimeout: "2m" });
`;

/**
 * A ProxyOrder's properties, from its definition: the inputs a program sets, with values, and the rest (its optional
 * inputs and its outputs) unset, as the resource's constructor passes them.
 */
function orderShape(root) {
  const { PROXY_ORDER } = createRequire(import.meta.url)(join(root, "dist", "provider", "definitions.js"));
  const example = { string: "x", boolean: true, integer: 1, number: 1 };
  const inputs = Object.entries(PROXY_ORDER.inputs);
  const set = inputs.filter(([, field]) => field.presence !== "optional");
  const unset = inputs.filter(([, field]) => field.presence === "optional").map(([name]) => name);
  return {
    set: Object.fromEntries(set.map(([name, field]) => [name, field.default ?? example[field.type]])),
    unset: [...unset, ...Object.keys(PROXY_ORDER.outputs)],
  };
}

/**
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
  const shape = orderShape(root);
  await cli(programs.shaped, ["config", "set", "shape", JSON.stringify(shape)]);

  const steps = {
    up: ["up", "--yes", "--skip-preview"],
    "no-change preview": ["preview", "--expect-no-changes"],
    refresh: ["refresh", "--yes", "--skip-preview"],
    destroy: ["destroy", "--yes", "--skip-preview"],
  };
  const figures = [];
  const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  try {
    for (const n of sizes) {
      const times = { ours: {}, noop: {}, shaped: {} };
      for (const dir of Object.values(programs)) await cli(dir, ["config", "set", "count", String(n)]);
      // Interleaved, so that a slow spell of the machine falls on every program alike rather than on one.
      for (let r = 0; r < repeats; r++) {
        for (const [name, dir] of Object.entries(programs)) {
          for (const [step, args] of Object.entries(steps)) {
            const started = performance.now();
            await cli(dir, args);
            (times[name][step] ??= []).push(performance.now() - started);
          }
        }
      }
      for (const step of Object.keys(steps)) {
        const ours = med(times.ours[step]);
        const noop = med(times.noop[step]);
        const ratio = ours / noop;
        figures.push([
          "engine overhead",
          `N = ${n}, ${step}: ${(ours / 1000).toFixed(1)} s vs no-op ${(noop / 1000).toFixed(1)} s`,
          `${ratio.toFixed(2)}x`,
          "<= 1.2x",
          ratio <= 1.2 ? "met" : "missed",
        ]);
      }
      const shapedRatios = Object.keys(steps).map((step) => (med(times.ours[step]) / med(times.shaped[step])).toFixed(2) + "x");
      figures.push([
        "engine overhead, anchor",
        `N = ${n}, ${Object.keys(steps).join(" / ")} vs a no-op with ProxyOrder's ${Object.keys(shape.set).length + shape.unset.length} properties`,
        shapedRatios.join(", "),
        "for comparison",
        "",
      ]);
    }
    // State size: the serialized provider stored with each ProxyOrder.
    await cli(programs.ours, ["config", "set", "count", "1"]);
    await cli(programs.ours, ["up", "--yes", "--skip-preview"]);
    const exported = JSON.parse(await cli(programs.ours, ["stack", "export"]));
    const order = exported.deployment.resources.find((r) => r.type.endsWith(":ProxyOrder"));
    const size = String(order?.inputs?.__provider ?? "").length;
    figures.push(["state size", "serialized provider per ProxyOrder (bytes)", String(size), "<= 8000", size <= 8000 ? "met" : "missed"]);
    // The whole entry matters too: the engine rewrites the state after every step, so it is paid N times per step.
    await cli(programs.noop, ["config", "set", "count", "1"]);
    await cli(programs.noop, ["up", "--yes", "--skip-preview"]);
    const noop = JSON.parse(await cli(programs.noop, ["stack", "export"])).deployment.resources.find((r) => r.type.startsWith("pulumi-nodejs:"));
    figures.push(["state size", "whole state entry: a ProxyOrder (5 proxies) vs a no-op resource (bytes)", `${JSON.stringify(order).length} vs ${JSON.stringify(noop).length}`, "for comparison", ""]);
    await cli(programs.ours, ["destroy", "--yes", "--skip-preview"]);
    await cli(programs.noop, ["destroy", "--yes", "--skip-preview"]);
  } finally {
    await sandbox.stop();
    workspace.cleanup();
  }
  return figures;
}
