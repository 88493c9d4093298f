/**
 * getProxies and getProxiesOutput: the proxies assigned to the account.
 */
import * as pulumi from "@pulumi/pulumi";
import { ProxyError } from "../client";
import { GET_PROXIES, listProxies, type ProxyCredential, type ProxyInfo, type ProxyListFilters, type Same, type Shape } from "../provider";
import type { Plain } from "./construct";
import { callFunction, dependencies, outputCall, programClient, type FunctionOutputOptions } from "./program-client";

/**
 * Filters of {@link getProxies}: those of `GET /v1/proxies`. There is no `includeCredentials` here: a plain Promise
 * cannot carry Pulumi's secret marking, so passwords could reach stack outputs in plain text. Use
 * {@link getProxiesOutput} with `includeCredentials`, whose result is secret.
 */
export type GetProxiesArgs = ProxyListFilters;

/** Filters of {@link getProxiesOutput}, as Inputs. */
export interface GetProxiesOutputArgs {
  /** Only proxies of this type; several types separated by commas (the dynamic provider's functions also take a list). */
  type?: pulumi.Input<string | string[]>;
  /**
   * Only proxies in this country (ISO 3166-1 alpha-2); several separated by commas (the dynamic provider's functions
   * also take a list).
   */
  country?: pulumi.Input<string | string[]>;
  /** Only proxies provisioned by this order. */
  orderId?: pulumi.Input<string>;
  /**
   * Only proxies that expire before this time (RFC 3339, such as `2026-12-01T00:00:00Z`); proxies with no known expiry
   * are left out. Filtered by the provider: the API has no such query.
   */
  expiresBefore?: pulumi.Input<string>;
  /** Return the proxies' credentials too, as a secret. Defaults to false. */
  includeCredentials?: boolean;
}

/** Result of {@link getProxies} and {@link getProxiesOutput}. */
export interface GetProxiesResult {
  /** Every matching proxy, without credentials. */
  proxies: ProxyInfo[];
  /** Credentials in the same order as `proxies`; empty unless `includeCredentials` is true. */
  credentials: ProxyCredential[];
}

async function callGetProxies(args: GetProxiesArgs, includeCredentials: boolean): Promise<GetProxiesResult> {
  const filters = { type: args.type, country: args.country, orderId: args.orderId, expiresBefore: args.expiresBefore };
  const result = await callFunction("proxy:index:getProxies", { ...filters, includeCredentials }, () =>
    listProxies(programClient(), filters, includeCredentials),
  );
  return { proxies: result.proxies ?? [], credentials: includeCredentials ? (result.credentials ?? []) : [] };
}

/**
 * Lists the proxies assigned to the account (`GET /v1/proxies`, all pages), without credentials. Under `setMocks`:
 * the mocks' `proxy:index:getProxies`.
 */
export async function getProxies(args: GetProxiesArgs = {}): Promise<GetProxiesResult> {
  if ((args as { includeCredentials?: unknown }).includeCredentials) {
    throw new ProxyError(
      "getProxies: includeCredentials is available only in getProxiesOutput, whose result is secret; a plain " +
        "Promise would put proxy passwords into stack outputs in plain text.",
      "invalid_argument",
    );
  }
  return callGetProxies(args, false);
}

/**
 * Like {@link getProxies}, taking Inputs; with `includeCredentials` the whole result is secret. `dependsOn` delays
 * the call until those resources exist.
 */
export function getProxiesOutput(args: GetProxiesOutputArgs = {}, options: FunctionOutputOptions = {}): pulumi.Output<GetProxiesResult> {
  const filters = pulumi
    .all([pulumi.output({ type: args.type, country: args.country, orderId: args.orderId, expiresBefore: args.expiresBefore }), dependencies(options)])
    .apply(([plain]) => plain);
  const includeCredentials = args.includeCredentials === true;
  // Marked secret before the credentials exist, so no Output ever holds them unmarked.
  return (includeCredentials ? pulumi.secret(filters) : filters).apply((plain) => outputCall(() => callGetProxies(plain, includeCredentials)));
}

// The arguments are the description's inputs by name (`type` and `country` also take lists here, which the description
// says), and the result is its outputs, by name and by type (dynamic-sdk/construct.ts).
const inSync: [
  Same<keyof GetProxiesOutputArgs, keyof typeof GET_PROXIES.inputs>,
  Same<keyof GetProxiesArgs | "includeCredentials", keyof typeof GET_PROXIES.inputs>,
  Same<Plain<GetProxiesResult>, Shape<typeof GET_PROXIES.outputs>>,
] = [true, true, true];
void inSync;
