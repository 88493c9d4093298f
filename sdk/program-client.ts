/**
 * The API client as the functions use it, in the program's own process (dynamic providers have no invokes).
 */
import * as pulumi from "@pulumi/pulumi";
import { ProxyApiClient } from "../client/client";
import { resolveSettings } from "../provider/config";

/** The process's client, configured from the stack's `proxy:*` config or the environment. */
export function programClient(): ProxyApiClient {
  // runtime.getConfig reads secrets without the plain-text warning of Config.get; the key stays in memory only.
  return ProxyApiClient.shared(resolveSettings((key) => pulumi.runtime.getConfig(key)));
}
