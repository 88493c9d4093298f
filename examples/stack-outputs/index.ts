import * as pulumi from "@pulumi/pulumi";
import type { ProxyCredential, ProxyInfo } from "pulumi-proxy";

// The stack that owns the ProxyOrder, such as "organization/proxy-quickstart/dev".
const config = new pulumi.Config();
const source = new pulumi.StackReference(config.require("proxyStack"));

const proxies = source.requireOutput("proxies") as pulumi.Output<ProxyInfo[]>;
const credentials = source.requireOutput("credentials") as pulumi.Output<ProxyCredential[]>;

/** An IPv6 address needs brackets in a URL. */
const host = (ip: string) => (ip.includes(":") ? `[${ip}]` : ip);

// host:port pairs, for allow-lists and health checks: not secret.
export const endpoints = proxies.apply((list) => list.map((p) => `${host(p.ip)}:${p.port}`));

// Proxy URLs with credentials, ready for HTTP_PROXY-style settings. Built from a secret, so secret too.
export const proxyUrls = pulumi.all([proxies, credentials]).apply(([list, creds]) =>
  list.map((p, i) => {
    const c = creds[i];
    const auth = c?.username ? `${encodeURIComponent(c.username)}:${encodeURIComponent(c.password ?? "")}@` : "";
    return `${p.protocol ?? "http"}://${auth}${host(p.ip)}:${p.port}`;
  }),
);

// How many proxies per country, for a dashboard.
export const perCountry = proxies.apply((list) =>
  list.reduce<Record<string, number>>((counts, p) => ({ ...counts, [p.country]: (counts[p.country] ?? 0) + 1 }), {}),
);
