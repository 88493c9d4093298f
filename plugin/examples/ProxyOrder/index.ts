import * as proxy from "@pulumi-proxy/proxy";

// One order of the plan dc-us-5, renewed by a new purchase a week before it expires.
const order = new proxy.ProxyOrder("order", {
    planId: "dc-us-5",
    renewBefore: "7d",
});

export const orderId = order.orderId;
export const proxies = order.proxies;
// Secret: each proxy's address, and its username and password when the plan has them.
export const credentials = order.credentials;
