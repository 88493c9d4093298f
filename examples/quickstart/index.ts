import * as pulumi from "@pulumi/pulumi";
import { getProxiesOutput, getUsage, ProxyOrder } from "pulumi-proxy";

const config = new pulumi.Config();
const planId = config.get("planId") ?? "dc-us-5";

// With healthTarget set (a URL that answers with the caller's address), each proxy is checked through itself once the
// order is ready and on every refresh (docs/checking-proxies.md); `npm run demo` sets it to the sandbox's echo target.
const healthTarget = config.get("healthTarget");

// One purchase. Running `pulumi up` again never buys it twice; changing planId buys a new order.
const order = new ProxyOrder("edge", {
  planId,
  readyTimeout: config.get("readyTimeout") ?? "10m",
  healthCheck: healthTarget ? { target: healthTarget } : undefined,
});

export const orderId = order.orderId;
export const status = order.status;
export const readyAt = order.readyAt;
export const proxies = order.proxies;
// Credentials are always secret: `pulumi stack output credentials --show-secrets` shows them.
export const credentials = order.credentials;
// How many proxies answered through themselves, and each one's result (null without healthTarget).
export const health = order.health;

// Every proxy on the account of the same country, and the usage, read once the order exists.
const sameCountry = getProxiesOutput({
  country: order.proxies.apply((list) => list[0]?.country ?? "US"),
});
export const proxiesInCountry = sameCountry.proxies.apply((list) => list.length);
export const usage = order.orderId.apply(() => getUsage());
