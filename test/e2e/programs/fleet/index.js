// Several orders, driven by config, for the end-to-end tests of recovery and the fault soak:
//   count (default 3), waitForReady (default true), readyTimeout (default "2m"),
//   plan<i> (default "dc-us-5") and adopt<i> (an order id to adopt) per order.
const pulumi = require("@pulumi/pulumi");
const { ProxyOrder } = require("pulumi-proxy");

const config = new pulumi.Config();
const count = config.getNumber("count") ?? 3;
for (let i = 0; i < count; i++) {
  const order = new ProxyOrder(`order-${i}`, {
    planId: config.get(`plan${i}`) ?? "dc-us-5",
    waitForReady: config.getBoolean("waitForReady") ?? true,
    readyTimeout: config.get("readyTimeout") ?? "2m",
    adoptOrderId: config.get(`adopt${i}`),
  });
  exports[`order${i}`] = order.orderId;
}
