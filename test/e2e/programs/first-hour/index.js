// What a new user writes first: an order, a fleet, and the functions' Output forms, for the preview of a stack with no
// settings (test/e2e/first-hour.test.ts).
const { ProxyFleet, ProxyOrder, getProxiesOutput, getUsageOutput } = require("pulumi-proxy");

const order = new ProxyOrder("order", { planId: "dc-us-5" });
const fleet = new ProxyFleet("fleet", { planId: "dc-us-5", orders: 3 });
exports.orderId = order.orderId;
exports.fleetProxies = fleet.proxies;
exports.usage = getUsageOutput();
exports.usProxies = getProxiesOutput({ country: "US" }).proxies;
