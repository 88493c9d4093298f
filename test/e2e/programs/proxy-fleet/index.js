// One ProxyFleet, driven by config, for the end-to-end tests of fleets:
//   orders (default 3), planId (default "dc-us-5"), readyTimeout (default "2m"), renewBefore (default unset).
const pulumi = require("@pulumi/pulumi");
const { ProxyFleet } = require("pulumi-proxy");

const config = new pulumi.Config();
const fleet = new ProxyFleet("fleet", {
  planId: config.get("planId") ?? "dc-us-5",
  orders: config.getNumber("orders") ?? 3,
  readyTimeout: config.get("readyTimeout") ?? "2m",
  renewBefore: config.get("renewBefore"),
});
exports.orderIds = fleet.members.apply((members) => members.map((m) => m.orderId));
exports.statuses = fleet.members.apply((members) => members.map((m) => m.status));
exports.proxyCount = fleet.proxies.apply((proxies) => proxies.length);
exports.expiresAt = fleet.expiresAt;
exports.credentials = fleet.credentials;
