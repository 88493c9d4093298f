/**
 * The rate-limit hints of the contract ("Rate limits" in docs/api-contract.md), in every form it names: how an answer's
 * headers are read into one quota (the client paces by it, `check-api` reports it) and how each form is written (the
 * sandbox speaks any of them). `Retry-After` is read here too, as delta seconds or an HTTP date.
 *
 * Hints are hints: a value that is missing, malformed or contradictory is ignored, never an error. Times the API states
 * absolutely (a Unix-time reset, an HTTP date) are read against `now`, the real time, which is the API's.
 */

/** A form of rate-limit hints. */
export type HintForm = "contract" | "ietf-draft" | "x-ratelimit" | "x-rate-limit";

/** Every form, in the order they are tried. */
export const HINT_FORMS: readonly HintForm[] = ["contract", "ietf-draft", "x-ratelimit", "x-rate-limit"];

/** How each form is named to users (`check-api`, the sandbox's help, the docs). */
export const HINT_FORM_NAMES: Record<HintForm, string> = {
  contract: "RateLimit-Limit/-Remaining/-Reset (the contract's)",
  "ietf-draft": "RateLimit and RateLimit-Policy (the IETF draft's structured fields)",
  "x-ratelimit": "X-RateLimit-Limit/-Remaining/-Reset (GitHub's, reset a Unix time)",
  "x-rate-limit": "X-Rate-Limit-Limit/-Remaining/-Reset (Okta's, reset a Unix time)",
};

/** A quota as one answer states it. */
export interface Quota {
  /** Requests the quota holds when whole (for a draft policy without `q`, what is left). */
  limit: number;
  /** Requests left now. */
  remaining: number;
  /** Milliseconds until the quota is whole again (0: it is). */
  resetMs: number;
}

/** What one answer says about the key's rate limit. */
export interface RateLimitHints {
  /** The tightest quota stated, in whichever forms the answer used; undefined when none could be read. */
  quota?: Quota;
  /** The forms whose hints were read. */
  forms: HintForm[];
  /** `Retry-After`, in milliseconds. */
  retryAfterMs?: number;
}

/** Reads every form of hints in `headers` (lower-case names). */
export function readRateLimitHints(headers: Record<string, string | undefined>, now: number): RateLimitHints {
  const read: [HintForm, Quota[]][] = [
    ["contract", orNone(counters(headers, "ratelimit-", now, false))],
    ["ietf-draft", draftQuotas(headers["ratelimit"], headers["ratelimit-policy"])],
    ["x-ratelimit", orNone(counters(headers, "x-ratelimit-", now, true))],
    ["x-rate-limit", orNone(counters(headers, "x-rate-limit-", now, true))],
  ];
  const found = read.filter(([, quotas]) => quotas.length > 0);
  return {
    quota: tightest(found.flatMap(([, quotas]) => quotas)),
    forms: found.map(([form]) => form),
    retryAfterMs: parseRetryAfter(headers["retry-after"], now),
  };
}

/**
 * The quota that holds requests back first: the least left for each second until its reset (a policy of 900 a day
 * with an hour to go is tighter than one of 5 a second), and of equals, the one with less left.
 */
function tightest(quotas: Quota[]): Quota | undefined {
  const pace = (q: Quota) => q.remaining / Math.max(1, q.resetMs / 1000);
  return quotas.reduce<Quota | undefined>((best, q) => {
    if (!best) return q;
    return pace(q) < pace(best) || (pace(q) === pace(best) && q.remaining < best.remaining) ? q : best;
  }, undefined);
}

/**
 * Parses an HTTP `Retry-After` value: delta seconds (`"120"`) or an HTTP date. Returns the delay in milliseconds
 * (never negative), or undefined when the value is absent or unreadable.
 */
export function parseRetryAfter(value: string | undefined | null, now: number): number | undefined {
  if (value === undefined || value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // Date.parse also accepts loose formats such as "2"; only a value with letters can be an HTTP date.
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** 2001-09-09 in Unix seconds: no quota window lasts that long, so a larger reset is a point in time. */
const UNIX_TIME_FLOOR_SECONDS = 1_000_000_000;

/**
 * The three-counter forms: `<prefix>limit`, `-remaining` and `-reset`, the reset a Unix time (`unixReset`) or delta
 * seconds (where a value too large to be a delta is still read as a Unix time, as some APIs send).
 */
function counters(headers: Record<string, string | undefined>, prefix: string, now: number, unixReset: boolean): Quota | undefined {
  // Early drafts allow a policy after the number (`10, 10;w=1`): the first number is the value.
  const number = (name: string) => {
    const match = /^\s*(\d+)(?:\.\d+)?\s*(?:[,;]|$)/.exec(headers[prefix + name] ?? "");
    return match ? Number(match[1]) : undefined;
  };
  const limit = number("limit");
  const remaining = number("remaining");
  const reset = number("reset");
  if (limit === undefined || remaining === undefined || reset === undefined || limit < 1) return undefined;
  const absolute = unixReset || reset >= UNIX_TIME_FLOOR_SECONDS;
  return { limit, remaining: Math.min(remaining, limit), resetMs: absolute ? Math.max(0, reset * 1000 - now) : reset * 1000 };
}

/**
 * The current draft's fields: `RateLimit: "default";r=42;t=17` (what is left, seconds to the reset) and
 * `RateLimit-Policy: "default";q=100;w=60` (the quota, its window), lists of named items matched by name. A
 * `RateLimit` item without `t` is whole again within the policy's window `w` (the draft's default), one without `r` or
 * a readable name is ignored.
 */
function draftQuotas(state: string | undefined, policy: string | undefined): Quota[] {
  const policies = new Map(structuredList(policy).map((item) => [item.name, item.params]));
  return structuredList(state).flatMap(({ name, params }) => {
    const remaining = params.get("r");
    const quota = policies.get(name)?.get("q");
    const reset = params.get("t") ?? policies.get(name)?.get("w");
    if (remaining === undefined || reset === undefined) return [];
    const limit = quota !== undefined && quota >= 1 ? quota : Math.max(1, remaining);
    return [{ limit, remaining: Math.min(remaining, limit), resetMs: reset * 1000 }];
  });
}

/**
 * The members of a structured-field list whose name is a string or a token and whose parameters are integers (RFC 9651;
 * other parameters are skipped, an unreadable member is left out).
 */
function structuredList(value: string | undefined): { name: string; params: Map<string, number> }[] {
  if (!value) return [];
  return value.split(",").flatMap((member) => {
    const [head = "", ...rest] = member.split(";").map((part) => part.trim());
    const name = /^"([^"\\]*)"$/.exec(head)?.[1] ?? (/^[A-Za-z*][\w:./*-]*$/.test(head) ? head : undefined);
    if (name === undefined) return [];
    const params = new Map<string, number>();
    for (const part of rest) {
      const match = /^([a-z*][a-z0-9_.*-]*)=(\d{1,15})$/.exec(part);
      if (match) params.set(match[1]!, Number(match[2]));
    }
    return [{ name, params }];
  });
}

function orNone<T>(value: T | undefined): T[] {
  return value === undefined ? [] : [value];
}

/** A quota to state in an answer: the sandbox's (and a test server's) side of {@link readRateLimitHints}. */
export interface StatedQuota {
  limit: number;
  remaining: number;
  /** Epoch milliseconds at which the quota is whole again. */
  resetAt: number;
  /** The quota's window, in seconds (the draft's `w`). */
  windowSeconds: number;
}

/** The headers that state `quota` in `form` at `now` (delta seconds and Unix times rounded up). */
export function rateLimitHeaders(form: HintForm, quota: StatedQuota, now: number): Record<string, string> {
  const { limit, remaining } = quota;
  const delta = String(Math.max(0, Math.ceil((quota.resetAt - now) / 1000)));
  const unix = String(Math.ceil(Math.max(quota.resetAt, now) / 1000));
  switch (form) {
    case "contract":
      return { "ratelimit-limit": String(limit), "ratelimit-remaining": String(remaining), "ratelimit-reset": delta };
    case "ietf-draft":
      return { "ratelimit-policy": `"default";q=${limit};w=${Math.max(1, Math.ceil(quota.windowSeconds))}`, ratelimit: `"default";r=${remaining};t=${delta}` };
    case "x-ratelimit":
      return { "x-ratelimit-limit": String(limit), "x-ratelimit-remaining": String(remaining), "x-ratelimit-reset": unix, "x-ratelimit-used": String(limit - remaining) };
    case "x-rate-limit":
      return { "x-rate-limit-limit": String(limit), "x-rate-limit-remaining": String(remaining), "x-rate-limit-reset": unix };
  }
}
