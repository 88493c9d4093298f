/**
 * Which HTTP dispatcher the client sends through when none is given.
 *
 * undici's global dispatcher, looked up on every call: that is what nock, undici's MockAgent and other interceptors
 * replace, so a user's tests can intercept (and `disableNetConnect` can block) this package's requests, and it keeps
 * one connection pool per process. When `HTTPS_PROXY`, `HTTP_PROXY` (or their lower-case forms) are set, requests go
 * through one process-wide `EnvHttpProxyAgent` instead, which honours them and `NO_PROXY`.
 */
import type { Dispatcher } from "undici";

const PROXY_VARIABLES = ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"];

let proxyAgent: { key: string; agent: Dispatcher } | undefined;

/** The dispatcher for a call made now, given the environment. */
export function defaultDispatcher(env: NodeJS.ProcessEnv = process.env): Dispatcher {
  const { EnvHttpProxyAgent, getGlobalDispatcher } = require("undici") as typeof import("undici");
  if (!PROXY_VARIABLES.some((name) => env[name])) {
    return getGlobalDispatcher();
  }
  const settings = [...PROXY_VARIABLES, "NO_PROXY", "no_proxy"].map((name) => env[name] ?? "").join("\n");
  if (proxyAgent?.key !== settings) {
    proxyAgent = {
      key: settings,
      agent: new EnvHttpProxyAgent({
        httpProxy: env.HTTP_PROXY ?? env.http_proxy,
        httpsProxy: env.HTTPS_PROXY ?? env.https_proxy,
        noProxy: env.NO_PROXY ?? env.no_proxy,
      }),
    };
  }
  return proxyAgent.agent;
}
