import * as pulumi from "@pulumi/pulumi";
import { getProxiesOutput, getUsage, ProxyOrder } from "pulumi-proxy";

const config = new pulumi.Config();
const planId = config.get("planId") ?? "dc-us-5";

// One purchase. Running `pulumi up` again never buys it twice; changing planId buys a new order.
const order = new ProxyOrder("edge", { planId, readyTimeout: config.get("readyTimeout") ?? "10m" });

export const orderId = order.orderId;
export const status = order.status;
export const readyAt = order.readyAt;
export const proxies = order.proxies;
// Credentials are always secret: `pulumi stack output credentials --show-secrets` shows them.
export const credentials = order.credentials;

// Every proxy on the account of the same country, and the usage, read once the order exists.
const sameCountry = getProxiesOutput({
  country: order.proxies.apply((list) => list[0]?.country ?? "US"),
});
export const proxiesInCountry = sameCountry.proxies.apply((list) => list.length);
export const usage = order.orderId.apply(() => getUsage());
