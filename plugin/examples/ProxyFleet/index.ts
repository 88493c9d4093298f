import * as proxy from "@pulumi-proxy/proxy";

// Twenty orders of the plan dc-us-5, each renewed three days before it expires. Once ready, the proxies are checked
// through themselves: at least 90% must answer, and up to two failing members are replaced per `pulumi up`.
const fleet = new proxy.ProxyFleet("scrapers", {
    planId: "dc-us-5",
    orders: 20,
    renewBefore: "3d",
    healthCheck: {
        target: "https://api.ipify.org?format=json",
        minHealthy: "90%",
    },
    replaceUnhealthy: 2,
});

export const members = fleet.members;
export const proxies = fleet.proxies;
// Secret, in the same order as `proxies`.
export const credentials = fleet.credentials;
