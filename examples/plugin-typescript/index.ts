// Two accounts in one stack: each explicit provider has its own base URL and API key, and each order is bought with
// the account of the provider it names.
import * as pulumi from "@pulumi/pulumi";
// The SDK generated for the plugin (this repository's sdk/nodejs); a published one would be "@pulumi-proxy/proxy".
import * as proxy from "../../sdk/nodejs";

const config = new pulumi.Config();
const accounts = ["primary", "backup"].map(
  (name) =>
    new proxy.Provider(name, {
      baseUrl: config.require(`${name}BaseUrl`),
      apiKey: config.requireSecret(`${name}ApiKey`),
    }),
);

const orders = accounts.map(
  (account, i) =>
    new proxy.ProxyOrder(`order-${i}`, { planId: config.get("planId") ?? "dc-us-5" }, { provider: account, customTimeouts: { create: "10m" } }),
);

export const orderIds = orders.map((order) => order.orderId);
export const statuses = orders.map((order) => order.status);
export const credentials = orders.map((order) => order.credentials);
export const backupProxies = proxy.getProxiesOutput({ orderId: orders[1]!.orderId }, { provider: accounts[1] }).proxies;
