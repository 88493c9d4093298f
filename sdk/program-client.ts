/**
 * The API client as the functions use it, in the program's own process (dynamic providers have no invokes).
 */
import * as pulumi from "@pulumi/pulumi";
import { ProxyApiClient } from "../provider/api/client";
import { resolveSettings } from "../provider/config";

/** Runs `use` with a client configured from the stack's `proxy:*` config or the environment, then closes it. */
export async function withProgramClient<T>(use: (client: ProxyApiClient) => Promise<T>): Promise<T> {
  // runtime.getConfig reads secrets without the plain-text warning of Config.get; the key stays in memory only.
  const settings = resolveSettings((key) => pulumi.runtime.getConfig(key));
  const client = new ProxyApiClient(settings);
  try {
    return await use(client);
  } finally {
    await client.close();
  }
}
