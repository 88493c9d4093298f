/**
 * The sandbox's command line: its usage, its options and their values checked (cli.ts runs it).
 */
import type { parseArgs } from "node:util";
import { HINT_FORMS } from "../contract";
import { SANDBOX_API_KEY, type SandboxOptions } from "./sandbox";

/** What `pulumi-proxy-sandbox --help` prints: every option of {@link OPTIONS}. */
export const USAGE = `Usage: pulumi-proxy-sandbox [options]

Runs a local stand-in for the Proxy Provisioning API (docs/sandbox.md).

Options:
  --port <n>               port to listen on; 0 picks a free one (default 8787)
  --host <address>         address to listen on (default 127.0.0.1)
  --api-key <key>          the accepted API key (default ${SANDBOX_API_KEY})
  --provisioning-time <s>  seconds from pending to active (default 3)
  --order-lifetime <s>     seconds an order stays active before it expires (default: its plan's, 30 days)
  --rate <n>               requests per second and key (a token bucket); 0 turns the limit off (default 10)
  --burst <n>              requests allowed at once after a quiet spell (default: the rate)
  --rate-limit-hints <when>  rate-limit hints: always, on-429 (only with refusals) or never (default always)
  --hint-form <form>       the hints' headers: contract (RateLimit-Limit...), ietf-draft (RateLimit, RateLimit-Policy),
                           ietf-draft-7 (RateLimit: limit=, remaining=, reset=), x-ratelimit (GitHub's) or
                           x-rate-limit (Okta's) (default contract)
  --window <s>             count the rate in fixed windows of this many seconds instead of a token bucket
  --latency <ms>           milliseconds each request and answer spend on the way, half each (default 0)
  --no-estimates           leave out estimated_ready_at and the polling Retry-After of pending orders
  --records <what>         full (every field of the contract) or minimal (proxies of the seed's four fields, without
                           credentials: allow-listed by IP) (default full)
  --state-file <path>      keep orders in this JSON file across restarts (default: memory only)
  --enable-admin           serve /__sandbox/ routes for fault injection (default off)
  --serve-proxies          give every proxy a real listener on 127.0.0.1 and serve an echo target (default off)
  --dead-proxies <share>   with --serve-proxies: share of proxies (0 to 1) dead from the start (default 0)
  --slow-proxies <share>   with --serve-proxies: share of proxies slow from the start (default 0)
  --bad-credential-proxies <share>  with --serve-proxies: share refusing their own credentials (default 0)
  --wrong-country-proxies <share>   with --serve-proxies: share exiting in another country than sold (default 0)
  --proxy-latency <ms>     with --serve-proxies: milliseconds every proxy takes to answer (default 0)
  --slow-proxy-delay <ms>  with --serve-proxies: milliseconds more a slow proxy takes (default 3000)
  --help                   show this text
`;

/** The command line options, with their defaults (USAGE says what each means). */
export const OPTIONS = {
  port: { type: "string", default: "8787" },
  host: { type: "string", default: "127.0.0.1" },
  "api-key": { type: "string", default: SANDBOX_API_KEY },
  "provisioning-time": { type: "string", default: "3" },
  "order-lifetime": { type: "string" },
  rate: { type: "string", default: "10" },
  burst: { type: "string" },
  "rate-limit-hints": { type: "string", default: "always" },
  "hint-form": { type: "string", default: "contract" },
  window: { type: "string" },
  latency: { type: "string", default: "0" },
  "no-estimates": { type: "boolean", default: false },
  records: { type: "string", default: "full" },
  "state-file": { type: "string" },
  "enable-admin": { type: "boolean", default: false },
  "serve-proxies": { type: "boolean", default: false },
  "dead-proxies": { type: "string", default: "0" },
  "slow-proxies": { type: "string", default: "0" },
  "bad-credential-proxies": { type: "string", default: "0" },
  "wrong-country-proxies": { type: "string", default: "0" },
  "proxy-latency": { type: "string", default: "0" },
  "slow-proxy-delay": { type: "string", default: "3000" },
  help: { type: "boolean", default: false },
} as const;

/** The command line's values. */
type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS }>>["values"];

/** The sandbox's options from the command line, each value checked, naming the flag that is wrong. */
export function optionsOf(values: Values): SandboxOptions {
  const number = (name: string, text: string): number => {
    const value = Number(text);
    if (!Number.isFinite(value) || value < 0) {
      throw new Error(`--${name} must be a number of 0 or more (got "${text}")`);
    }
    return value;
  };
  const share = (name: string, text: string): number => {
    const value = number(name, text);
    if (value > 1) throw new Error(`--${name} must be a share from 0 to 1 (got "${text}")`);
    return value;
  };
  const rate = number("rate", values.rate);
  const burst = values.burst === undefined ? undefined : number("burst", values.burst);
  const hints = values["rate-limit-hints"];
  if (hints !== "always" && hints !== "on-429" && hints !== "never") {
    throw new Error(`--rate-limit-hints must be always, on-429 or never (got "${hints}")`);
  }
  const form = HINT_FORMS.find((f) => f === values["hint-form"]);
  if (form === undefined) {
    throw new Error(`--hint-form must be one of ${HINT_FORMS.join(", ")} (got "${values["hint-form"]}")`);
  }
  const records = values.records;
  if (records !== "full" && records !== "minimal") throw new Error(`--records must be full or minimal (got "${records}")`);
  return {
    records,
    port: number("port", values.port),
    host: values.host,
    apiKey: values["api-key"],
    provisioningMs: number("provisioning-time", values["provisioning-time"]) * 1000,
    orderLifetimeMs: values["order-lifetime"] === undefined ? undefined : number("order-lifetime", values["order-lifetime"]) * 1000,
    rateLimit: rate === 0 ? false : { requestsPerSecond: rate, burst, windowSeconds: values.window === undefined ? undefined : number("window", values.window) },
    rateLimitHints: hints,
    rateLimitHintForm: form,
    latencyMs: number("latency", values.latency),
    pollingHints: !values["no-estimates"],
    stateFile: values["state-file"],
    enableAdmin: values["enable-admin"],
    serveProxies: values["serve-proxies"] && {
      dead: share("dead-proxies", values["dead-proxies"]),
      slow: share("slow-proxies", values["slow-proxies"]),
      badCredentials: share("bad-credential-proxies", values["bad-credential-proxies"]),
      wrongCountry: share("wrong-country-proxies", values["wrong-country-proxies"]),
      latencyMs: number("proxy-latency", values["proxy-latency"]),
      slowMs: number("slow-proxy-delay", values["slow-proxy-delay"]),
    },
  };
}
