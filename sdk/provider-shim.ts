/**
 * The provider object Pulumi serializes into the state with every ProxyOrder.
 *
 * Each method loads `pulumi-proxy/provider` by name inside the provider process (Pulumi never serializes `require`).
 * So the state holds about a kilobyte of forwarding code and no captured values: no API key, no client, no schemas.
 * That module path is therefore a stable interface: states written by this version call it.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { OrderProvider } from "../provider/order-provider";

// `require` must stay inside each method: that is what keeps the provider out of the serialized closure.
export const providerShim: pulumi.dynamic.ResourceProvider = {
  configure: (req) => (require("pulumi-proxy/provider").orderProvider as OrderProvider).configure(req),
  check: (olds, news) => (require("pulumi-proxy/provider").orderProvider as OrderProvider).check(olds, news),
  diff: (id, olds, news) => (require("pulumi-proxy/provider").orderProvider as OrderProvider).diff(id, olds, news),
  create: (inputs) => (require("pulumi-proxy/provider").orderProvider as OrderProvider).create(inputs),
  read: (id, props) => (require("pulumi-proxy/provider").orderProvider as OrderProvider).read(id, props),
  update: (id, olds, news) => (require("pulumi-proxy/provider").orderProvider as OrderProvider).update(id, olds, news),
  delete: (id, props) => (require("pulumi-proxy/provider").orderProvider as OrderProvider).delete(id, props),
};
