import { getUsageOutput, ProxyOrder } from "pulumi-proxy";

const order = new ProxyOrder("edge", { planId: "dc-us-5" });

export const orderId = order.orderId;
export const proxies = order.proxies;
export const usage = getUsageOutput();
