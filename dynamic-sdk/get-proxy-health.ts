/**
 * getProxyHealth and getProxyHealthOutput: proxies checked through themselves, from the program's process.
 */
import * as pulumi from "@pulumi/pulumi";
import { ProxyError } from "../client";
import { checkGetProxyHealthArgs, checkProxyHealth, GET_PROXY_HEALTH, type HealthOutput, type Same, type Shape } from "../provider";
import { callFunction, dependencies, outputCall, programClient, type FunctionOutputOptions } from "./program-client";

/** Arguments of {@link getProxyHealth}: the target, which proxies, and how to check them. */
export interface GetProxyHealthArgs {
  /**
   * The URL requested through each proxy, `http://` or `https://`. One that answers with the caller's address (as
   * JSON `{"ip": ...}` or the bare address) also gives each proxy's `exitIp`; one that names the caller's country too
   * (`{"ip": ..., "country": "US"}`, `countryCode`, `country_code`) holds each proxy to the country it was sold for.
   */
  target: string;
  /** Only the proxies of these orders: an order's `orderId`, or every `orderId` of a fleet's `members`. */
  orderIds?: string[];
  /** Only proxies of this type; several types separated by commas (the dynamic provider's functions also take a list). */
  type?: string | string[];
  /**
   * Only proxies in this country (ISO 3166-1 alpha-2); several separated by commas (the dynamic provider's functions
   * also take a list).
   */
  country?: string | string[];
  /** Only proxies provisioned by this order. */
  orderId?: string;
  /**
   * Only proxies that expire before this time (RFC 3339, such as `2026-12-01T00:00:00Z`); proxies with no known expiry
   * are left out. Filtered by the provider: the API has no such query.
   */
  expiresBefore?: string;
  /** The most one proxy's check takes, connection to answer, such as `10s` (1s to 5m). Defaults to `10s`. */
  timeout?: string;
  /** The most proxies checked at once, 1 to 500. Defaults to 50. */
  concurrency?: number;
}

/** Arguments of {@link getProxyHealthOutput}, as Inputs. */
export type GetProxyHealthOutputArgs = { [K in keyof GetProxyHealthArgs]: pulumi.Input<GetProxyHealthArgs[K]> };

/** Result of {@link getProxyHealth}: how many proxies answered, and each proxy's result. Never holds a credential. */
export type GetProxyHealthResult = HealthOutput;

/**
 * Checks proxies through themselves, from where the program runs: connects through each, with its credentials (HTTP
 * `CONNECT` or SOCKS5), to `target`. Under `setMocks`: the mocks' `proxy:index:getProxyHealth`.
 */
export async function getProxyHealth(args: GetProxyHealthArgs): Promise<GetProxyHealthResult> {
  const plain = { ...args, type: joined(args.type), country: joined(args.country) };
  return callFunction("proxy:index:getProxyHealth", plain, async () => {
    const call = checkGetProxyHealthArgs(plain);
    if (call.failures) {
      throw new ProxyError(`getProxyHealth: ${call.failures.map((f) => f.reason).join(" ")} Nothing was checked.`, "invalid_argument");
    }
    return checkProxyHealth(programClient(), call.query);
  });
}

/** Like {@link getProxyHealth}, taking Inputs. `dependsOn` delays the check until those resources exist. */
export function getProxyHealthOutput(args: GetProxyHealthOutputArgs, options: FunctionOutputOptions = {}): pulumi.Output<GetProxyHealthResult> {
  return pulumi
    .all([pulumi.output(args), dependencies(options)])
    .apply(([plain]) => outputCall(() => getProxyHealth(plain as GetProxyHealthArgs)));
}

/** A list as the API's filters take it: values separated by commas. */
function joined(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(",") : value;
}

// The arguments are the description's inputs by name, and the result its outputs, by name and by type.
const inSync: [Same<keyof GetProxyHealthArgs, keyof typeof GET_PROXY_HEALTH.inputs>, Same<GetProxyHealthResult, Shape<typeof GET_PROXY_HEALTH.outputs>>] = [
  true,
  true,
];
void inSync;
