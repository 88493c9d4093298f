// One order renewed before it expires, for the end-to-end tests of renewal: renewBefore (default unset) from config.
const pulumi = require("@pulumi/pulumi");
const { ProxyOrder } = require("pulumi-proxy");

const config = new pulumi.Config();
const order = new ProxyOrder("order", { planId: "dc-us-5", readyTimeout: "2m", renewBefore: config.get("renewBefore") });
exports.orderId = order.orderId;
exports.expiresAt = order.expiresAt;
exports.firstIp = order.proxies.apply((proxies) => proxies[0]?.ip);
