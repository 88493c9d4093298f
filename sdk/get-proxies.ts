/**
 * getProxies and getProxiesOutput: the proxies assigned to the account.
 */
import * as pulumi from "@pulumi/pulumi";
import type { ProxyFilters } from "../provider/api/client";
import { splitCredentials, type ProxyCredential, type ProxyInfo } from "../provider/order-state";
import { withProgramClient } from "./program-client";

/** Filters of {@link getProxies}: those of `GET /v1/proxies`, and whether to return credentials. */
export interface GetProxiesArgs extends Pick<ProxyFilters, "type" | "country" | "orderId"> {
  /** Return the proxies' credentials too. @default false */
  includeCredentials?: boolean;
}

/** Filters of {@link getProxiesOutput}, as Inputs. */
export interface GetProxiesOutputArgs {
  type?: pulumi.Input<string | string[]>;
  country?: pulumi.Input<string | string[]>;
  orderId?: pulumi.Input<string>;
  /** Return the proxies' credentials too; the whole result is then secret. @default false */
  includeCredentials?: boolean;
}

/** Result of {@link getProxies}. */
export interface GetProxiesResult {
  /** Every matching proxy, across all pages, without credentials. */
  proxies: ProxyInfo[];
  /** Credentials in the same order as `proxies`; empty unless `includeCredentials` is set. */
  credentials: ProxyCredential[];
}

/** Lists the proxies assigned to the account (`GET /v1/proxies`, all pages). */
export async function getProxies(args: GetProxiesArgs = {}): Promise<GetProxiesResult> {
  const all = await withProgramClient((client) =>
    client.listProxies({ type: args.type, country: args.country, orderId: args.orderId }),
  );
  const { proxies, credentials } = splitCredentials(all);
  return { proxies, credentials: args.includeCredentials ? credentials : [] };
}

/** Like {@link getProxies}, taking Inputs; the result is secret when it includes credentials. */
export function getProxiesOutput(args: GetProxiesOutputArgs = {}): pulumi.Output<GetProxiesResult> {
  const result = pulumi
    .output({ type: args.type, country: args.country, orderId: args.orderId })
    .apply((plain) => getProxies({ ...plain, includeCredentials: args.includeCredentials }));
  return args.includeCredentials ? pulumi.secret(result) : result;
}
