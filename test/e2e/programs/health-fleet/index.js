// One ProxyFleet of one-proxy orders with a health check, and getProxyHealthOutput of its orders, driven by config,
// for the end-to-end tests of health checks:
//   target (required: the URL to request through each proxy), orders (default 20), minHealthy and replaceUnhealthy
//   (default unset).
const pulumi = require("@pulumi/pulumi");
const { getProxyHealthOutput, ProxyFleet } = require("pulumi-proxy");

const config = new pulumi.Config();
const fleet = new ProxyFleet("fleet", {
  planId: "dc-us-1",
  orders: config.getNumber("orders") ?? 20,
  readyTimeout: "2m",
  healthCheck: { target: config.require("target"), timeout: "5s", minHealthy: config.get("minHealthy") },
  replaceUnhealthy: config.getNumber("replaceUnhealthy"),
});
exports.orderIds = fleet.members.apply((members) => members.map((m) => m.orderId));
exports.healthy = fleet.health.apply((h) => h && h.healthy);
exports.total = fleet.health.apply((h) => h && h.total);
exports.failed = fleet.health.apply((h) => (h ? h.results.filter((r) => !r.healthy).map((r) => r.orderId) : []));
// The same check from the program's process, by the dynamic provider's function.
const checked = getProxyHealthOutput({ orderIds: exports.orderIds, target: config.require("target"), timeout: "5s" });
exports.functionHealthy = checked.healthy;
exports.functionTotal = checked.total;
