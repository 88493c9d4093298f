import { ProxyOrder } from "pulumi-proxy";

// Renewed three days before expiry: a daily run always meets a renewal at least twice before its order expires, with
// time to spare for a failed run.
const edge = new ProxyOrder("edge", { planId: "dc-us-5", renewBefore: "3d" });

export const orderId = edge.orderId;
export const expiresAt = edge.expiresAt;
export const proxies = edge.proxies;
