/**
 * Where the provider's settings come from, in one place: the stack's `proxy:*` config first, then the environment.
 */
import { isIP } from "node:net";
import { ProxyError } from "../../client";

/** The configuration is missing or unsafe; raised before any request is made. */
export class ConfigurationError extends ProxyError {
  constructor(message: string) {
    super(message, "configuration");
  }
}

/** Each setting: its config key and its environment variable. The README's table lists the same. */
export const CONFIG_KEYS = {
  baseUrl: { key: "proxy:baseUrl", env: "PROXY_API_BASE_URL" },
  apiKey: { key: "proxy:apiKey", env: "PROXY_API_KEY" },
  maxRateShare: { key: "proxy:maxRateShare", env: "PROXY_API_MAX_RATE_SHARE" },
} as const;

/** The share of the key's rate limit used when `maxRateShare` is not set: all of it. */
export const DEFAULT_MAX_RATE_SHARE = 100;

/** Resolved settings of the provider. */
export interface ProviderSettings {
  /** Base URL of the API, without `/v1`. */
  baseUrl: string;
  /** API key. Never logged, never stored in state. */
  apiKey: string;
  /** The most of the key's rate limit this provider uses, in percent (1 to 100). */
  maxRateShare: number;
}

/** Reads one config value (`proxy:baseUrl`); undefined when unset. */
export type ConfigLookup = (key: string) => string | undefined;

/** How messages name the base URL when it comes from the stack's config or the environment. */
const BASE_URL_NAME = `${CONFIG_KEYS.baseUrl.key} (or ${CONFIG_KEYS.baseUrl.env})`;

/** How users start the local sandbox: from the npm package, or with the provider plugin's executable (no Node.js). */
export const SANDBOX_COMMANDS = { npm: "npx pulumi-proxy-sandbox", plugin: "pulumi-resource-proxy sandbox" } as const;

/** How a caller's messages name things: its base URL setting, and the sandbox command of its users' front end. */
export interface SettingNames {
  /** @default `proxy:baseUrl (or PROXY_API_BASE_URL)` */
  baseUrl?: string;
  /** @default {@link SANDBOX_COMMANDS}.npm */
  sandboxCommand?: string;
  /** Config keys set that look like a setting misspelt ({@link misspeltSettings}): a missing setting's message names them. */
  misspelt?: readonly MisspeltSetting[];
}

/** A config key that is not a setting of this provider but is close to one. */
export interface MisspeltSetting {
  given: string;
  meant: string;
}

/**
 * The keys among `keys` (config keys, `proxy:...`) that are not a setting of this provider but are within two edits of
 * one, ignoring case: `proxy:baseURL` for `proxy:baseUrl`. Keys of other namespaces, and `proxy:` keys near no setting,
 * are left alone (a program may keep its own).
 */
export function misspeltSettings(keys: Iterable<string>): MisspeltSetting[] {
  const known: string[] = Object.values(CONFIG_KEYS).map((setting) => setting.key);
  const found: MisspeltSetting[] = [];
  for (const given of keys) {
    if (!given.startsWith("proxy:") || known.includes(given)) continue;
    const meant = known.find((key) => editDistance(key.toLowerCase(), given.toLowerCase()) <= 2);
    if (meant) found.push({ given, meant });
  }
  return found;
}

/** What a missing or misspelt setting's message adds: each misspelt key and the setting it may mean. */
export function misspeltHint(misspelt: readonly MisspeltSetting[]): string {
  return misspelt.map(({ given, meant }) => ` \`${given}\` is set, but it is not a setting of this provider: did you mean \`${meant}\`?`).join("");
}

/** Levenshtein distance: the fewest single-character insertions, deletions and substitutions from `a` to `b`. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/**
 * Resolves the settings: config key, then environment variable. Throws a ConfigurationError that names both when
 * a setting is missing, and when the base URL would send the key in clear text. `baseUrlName` is how errors about the
 * base URL name it, for a caller whose config is not the stack's (an explicit provider's `baseUrl` argument).
 */
export function resolveSettings(config: ConfigLookup, env: NodeJS.ProcessEnv = process.env, names: SettingNames = {}): ProviderSettings {
  const { baseUrl: baseUrlName = BASE_URL_NAME, sandboxCommand = SANDBOX_COMMANDS.npm, misspelt = [] } = names;
  const pick = (setting: keyof typeof CONFIG_KEYS): string | undefined => {
    const { key, env: name } = CONFIG_KEYS[setting];
    const value = config(key) ?? env[name];
    return value === undefined || value.trim() === "" ? undefined : value.trim();
  };
  const baseUrl = pick("baseUrl");
  const apiKey = pick("apiKey");
  const missing: string[] = [];
  if (baseUrl === undefined) {
    missing.push(
      "the API base URL: `pulumi config set proxy:baseUrl <url>` or PROXY_API_BASE_URL " +
        `(the API is not live yet: start the local sandbox with \`${sandboxCommand}\` and use the URL it prints)`,
    );
  }
  if (apiKey === undefined) {
    missing.push("the API key: `pulumi config set proxy:apiKey <key> --secret` or PROXY_API_KEY");
  }
  if (baseUrl === undefined || apiKey === undefined) {
    throw new ConfigurationError(`The proxy provider is not configured. Set ${missing.join("; and ")}.${misspeltHint(misspelt)}`);
  }
  checkBaseUrl(baseUrl, baseUrlName);
  return { baseUrl: baseUrl.replace(/\/+$/, ""), apiKey, maxRateShare: rateShare(pick("maxRateShare")) };
}

/** `maxRateShare` as a number: a whole percent from 1 to 100, or the default when unset. */
function rateShare(text: string | undefined): number {
  if (text === undefined) return DEFAULT_MAX_RATE_SHARE;
  const share = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!(share >= 1 && share <= 100)) {
    const { key, env } = CONFIG_KEYS.maxRateShare;
    throw new ConfigurationError(
      `${key} (or ${env}, or an explicit provider's maxRateShare) must be a whole percent from 1 to 100, such as 50 ` +
        `(got "${text}"): the most of the API key's rate limit this stack may use. Leave it unset to use all of it.`,
    );
  }
  return share;
}

/**
 * The base URL must be http(s), without credentials or a query, and https unless the host is loopback. `name` is how
 * the errors name the setting.
 */
export function checkBaseUrl(baseUrl: string, name: string = BASE_URL_NAME): void {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new ConfigurationError(
      `${name} "${baseUrl}" is not a URL; use a form such as https://api.example.com.`,
    );
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new ConfigurationError(`${name} must use https (got ${url.protocol}).`);
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new ConfigurationError(
      `${name} must not carry credentials, a query or a fragment; ` +
        "use only scheme, host and port (the API key goes in proxy:apiKey).",
    );
  }
  // Rejected rather than stripped: a base URL that already names a version is a mistake worth seeing, and every call
  // to it would answer 404, which must never be read as "the order is gone".
  if (/(^|\/)v\d+(\/|$)/i.test(url.pathname.replace(/^\/+/, ""))) {
    throw new ConfigurationError(
      `${name} "${baseUrl}" contains a version path ("${url.pathname}"); ` +
        `remove it and use "${url.origin}": the provider adds /v1 itself.`,
    );
  }
  if (url.protocol === "http:" && !isLoopback(url.hostname)) {
    throw new ConfigurationError(
      `${name} "${url.origin}" uses http, which would send the API key in clear text. ` +
        "Use https; plain http is allowed only for loopback hosts (localhost, 127.0.0.0/8, ::1), such as the local sandbox.",
    );
  }
}

/** True for localhost, 127.0.0.0/8 and ::1. */
export function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (host === "localhost" || host.endsWith(".localhost")) {
    return true;
  }
  if (isIP(host) === 4) {
    return host.startsWith("127.");
  }
  if (isIP(host) === 6) {
    return host === "::1" || host === "0:0:0:0:0:0:0:1";
  }
  return false;
}

/** A provider setting's name (`baseUrl`), as a plugin provider's arguments and the schema spell it. */
export type SettingName = keyof typeof CONFIG_KEYS;

/** The setting names, in the order of CONFIG_KEYS. */
export const SETTING_NAMES = Object.keys(CONFIG_KEYS) as SettingName[];

/** The setting (`baseUrl`) a `proxy:*` config key names, as CONFIG_KEYS pairs them. */
function settingOf(key: string): string | undefined {
  return SETTING_NAMES.find((name) => CONFIG_KEYS[name].key === key);
}

/**
 * Where a provider plugin's settings come from, in order: the checked provider arguments (`args`, unless a value is
 * not known yet), then the engine's config variables (`proxy:baseUrl`, or the older `proxy:config:baseUrl`);
 * resolveSettings falls back to the environment after these.
 */
export function pluginSettings(args: Record<string, unknown> | undefined, variables: ReadonlyMap<string, string>, unknown: unknown): ConfigLookup {
  return (key) => {
    const name = settingOf(key) ?? key;
    const fromArgs = args?.[name];
    if (typeof fromArgs === "number") return String(fromArgs);
    if (typeof fromArgs === "string" && fromArgs !== unknown) return fromArgs;
    return variables.get(key) ?? variables.get(`proxy:config:${name}`);
  };
}

/**
 * Why a provider plugin's settings cannot be used, or undefined when they can. A default provider's settings are the
 * stack's `proxy:*` config; an explicit provider's (`providerName`, with its own baseUrl) are its arguments, and the
 * message names it.
 */
export function settingsProblem(values: Record<string, unknown>, env: NodeJS.ProcessEnv, providerName: string | undefined): string | undefined {
  const given = (name: string) => {
    const value = values[name];
    return typeof value === "string" ? value : typeof value === "number" ? String(value) : undefined;
  };
  const explicit = providerName !== undefined && providerName !== "" && !/^default(_|$)/.test(providerName) && given("baseUrl") !== undefined;
  try {
    resolveSettings((key) => given(settingOf(key) ?? key), env, {
      baseUrl: explicit ? `The baseUrl of provider "${providerName}"` : undefined,
      sandboxCommand: SANDBOX_COMMANDS.plugin,
      misspelt: misspeltSettings(Object.keys(values).map((name) => `proxy:${name}`)),
    });
    return undefined;
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    return error.message;
  }
}

/** A settings problem's first sentence, and where the rest is said (ProviderOptions.settingsToldByProgram). */
export function toldByProgram(problem: string): string {
  const first = /^.*?[.:](?=\s|$)/.exec(problem)?.[0] ?? problem;
  return `${first.replace(/[.:]$/, "")} (the stack's error says what to set).`;
}
