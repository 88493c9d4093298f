// A ProxyOrder and a ProxyFleet, each checked through its proxies, and the functions, for an API whose proxy records
// carry the seed's four fields only (allow-listed by IP, no credentials): the end-to-end test of issue 71.
//   target (required): the URL to request through each proxy.
const pulumi = require("@pulumi/pulumi");
const { getProxiesOutput, getProxyHealthOutput, getUsageOutput, ProxyFleet, ProxyOrder } = require("pulumi-proxy");

const config = new pulumi.Config();
const healthCheck = { target: config.require("target"), timeout: "5s", minHealthy: "100%" };
const order = new ProxyOrder("order", { planId: "dc-us-5", readyTimeout: "2m", healthCheck });
// Two orders of a SOCKS5 plan: the check offers SOCKS5 "no authentication".
const fleet = new ProxyFleet("fleet", { planId: "mobile-fr-1", orders: 2, readyTimeout: "2m", healthCheck });

exports.orderId = order.orderId;
exports.proxies = order.proxies;
exports.credentials = order.credentials;
exports.health = order.health;
exports.fleetOrderIds = fleet.members.apply((members) => members.map((m) => m.orderId));
exports.fleetCredentials = fleet.credentials;
exports.fleetHealth = fleet.health;
const listed = getProxiesOutput({ includeCredentials: true }, { dependsOn: [order, fleet] });
exports.listedCredentials = listed.credentials;
exports.listedHealthy = getProxyHealthOutput({ target: config.require("target"), timeout: "5s" }, { dependsOn: [order, fleet] }).healthy;
exports.orderHealthy = getProxyHealthOutput({ target: config.require("target"), timeout: "5s", orderIds: [order.orderId] }).healthy;
exports.usage = getUsageOutput({ dependsOn: [order] });
