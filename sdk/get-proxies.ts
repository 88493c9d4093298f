/**
 * getProxies and getProxiesOutput: the proxies assigned to the account.
 */
import * as pulumi from "@pulumi/pulumi";
import type { ProxyFilters } from "../client/client";
import { splitCredentials, type ProxyCredential, type ProxyInfo } from "../provider/order-state";
import { programClient } from "./program-client";

/**
 * Filters of {@link getProxies}: those of `GET /v1/proxies`. There is no `includeCredentials` here: a plain Promise
 * cannot carry Pulumi's secret marking, so passwords could reach stack outputs in plain text. Use
 * {@link getProxiesOutput} with `includeCredentials`, whose result is secret.
 */
export type GetProxiesArgs = Pick<ProxyFilters, "type" | "country" | "orderId">;

/** Filters of {@link getProxiesOutput}, as Inputs. */
export interface GetProxiesOutputArgs {
  type?: pulumi.Input<string | string[]>;
  country?: pulumi.Input<string | string[]>;
  orderId?: pulumi.Input<string>;
  /** Return the proxies' credentials too; the whole result is then secret. @default false */
  includeCredentials?: boolean;
}

/** Result of {@link getProxies} and {@link getProxiesOutput}. */
export interface GetProxiesResult {
  /** Every matching proxy, across all pages, without credentials. */
  proxies: ProxyInfo[];
  /** Credentials in the same order as `proxies`; empty unless `getProxiesOutput` was asked for them. */
  credentials: ProxyCredential[];
}

async function listProxies(args: GetProxiesArgs): Promise<{ proxies: ProxyInfo[]; credentials: ProxyCredential[] }> {
  const all = await programClient().listProxies({ type: args.type, country: args.country, orderId: args.orderId });
  return splitCredentials(all);
}

/** Lists the proxies assigned to the account (`GET /v1/proxies`, all pages), without credentials. */
export async function getProxies(args: GetProxiesArgs = {}): Promise<GetProxiesResult> {
  if ((args as { includeCredentials?: unknown }).includeCredentials) {
    throw new Error(
      "getProxies: includeCredentials is available only in getProxiesOutput, whose result is secret; a plain " +
        "Promise would put proxy passwords into stack outputs in plain text.",
    );
  }
  const { proxies } = await listProxies(args);
  return { proxies, credentials: [] };
}

/** Like {@link getProxies}, taking Inputs; with `includeCredentials` the whole result is secret. */
export function getProxiesOutput(args: GetProxiesOutputArgs = {}): pulumi.Output<GetProxiesResult> {
  const filters = pulumi.output({ type: args.type, country: args.country, orderId: args.orderId });
  if (!args.includeCredentials) {
    return filters.apply((plain) => getProxies(plain));
  }
  // Marked secret before the credentials exist, so no Output ever holds them unmarked.
  return pulumi.secret(filters).apply((plain) => listProxies(plain));
}
