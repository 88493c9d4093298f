import * as pulumi from "@pulumi/pulumi";
import { getProxiesOutput, ProxyOrder } from "pulumi-proxy";

const config = new pulumi.Config();

/** One order, and the URLs of every German proxy on the account, for a load balancer to use. */
export const order = new ProxyOrder("edge", { planId: config.get("planId") ?? "dc-de-25" });
export const orderId = order.orderId;
export const germanProxyUrls = getProxiesOutput({ country: "DE" }, { dependsOn: [order] }).proxies.apply((list) =>
  list.map((p) => `${p.protocol ?? "http"}://${p.ip}:${p.port}`),
);
