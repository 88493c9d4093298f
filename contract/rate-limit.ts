/**
 * The rate-limit hints of the contract ("Rate limits" in docs/api-contract.md), in every form it names: how an answer's
 * headers are read into one quota (the client paces by it, `check-api` reports it) and how each form is written (the
 * sandbox speaks any of them). `Retry-After` is read here too, as delta seconds or an HTTP date.
 *
 * Hints are hints: a value that is missing, malformed or contradictory is ignored, never an error. Times the API states
 * absolutely (a Unix-time reset, an HTTP date) are read against the API's own clock ({@link apiTime}).
 */
import { unixTimeMs } from "./unix-time";

/** A form of rate-limit hints. */
export type HintForm = "contract" | "ietf-draft" | "ietf-draft-7" | "x-ratelimit" | "x-rate-limit";

/** Every form, in the order they are tried. */
export const HINT_FORMS: readonly HintForm[] = ["contract", "ietf-draft", "ietf-draft-7", "x-ratelimit", "x-rate-limit"];

/** How each form is named to users (`check-api`, the sandbox's help, the docs). */
export const HINT_FORM_NAMES: Record<HintForm, string> = {
  contract: "RateLimit-Limit/-Remaining/-Reset (the contract's)",
  "ietf-draft": "RateLimit and RateLimit-Policy (the IETF draft's structured fields)",
  "ietf-draft-7": "RateLimit: limit=, remaining=, reset= (the IETF draft-07 dictionary, express-rate-limit's draft-7)",
  "x-ratelimit": "X-RateLimit-Limit/-Remaining/-Reset (GitHub's)",
  "x-rate-limit": "X-Rate-Limit-Limit/-Remaining/-Reset (Okta's)",
};

/** A rate-limit header an answer carried that no form read: a form the reader does not know. */
export interface UnreadHint {
  /** The header's name, lower-case. */
  name: string;
  /** Its value, cut to 120 characters. */
  value: string;
}

/** A quota as one answer states it. */
export interface Quota {
  /** Requests the quota holds when whole (for a draft policy without `q`, what is left). */
  limit: number;
  /** Requests left now. */
  remaining: number;
  /**
   * Milliseconds until the quota is whole again (0: it is). Below 0 for a moment stated as already passed, by as much:
   * servers that cut their Unix-time resets down to the second state one often (client/pace.ts, rule 4).
   */
  resetMs: number;
  /**
   * The reset was stated as a point in time (a Unix time), not as seconds from now: every answer of a fixed window names
   * the same second, so that no answer narrows down where in it the window ends.
   */
  resetIsMoment: boolean;
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

/** Reads every form of hints in `headers` (lower-case names), the answer's `now` being this machine's time. */
export function readRateLimitHints(headers: Record<string, string | undefined>, localNow: number): RateLimitHints {
  const now = apiTime(headers["date"], localNow);
  const read: [HintForm, Quota[]][] = [
    ["contract", orNone(counters(headers, "ratelimit-", now))],
    ["ietf-draft", draftQuotas(headers["ratelimit"], headers["ratelimit-policy"], now)],
    ["ietf-draft-7", orNone(draft7Quota(headers["ratelimit"], now))],
    ["x-ratelimit", orNone(counters(headers, "x-ratelimit-", now))],
    ["x-rate-limit", orNone(counters(headers, "x-rate-limit-", now))],
  ];
  const found = read.filter(([, quotas]) => quotas.length > 0);
  return {
    quota: tightest(found.flatMap(([, quotas]) => quotas)),
    forms: found.map(([form]) => form),
    retryAfterMs: parseRetryAfter(headers["retry-after"], now),
  };
}

/** The families of rate-limit headers, by name, and the forms that read each. */
const HINT_FAMILIES: ReadonlyArray<{ name: RegExp; readBy: readonly HintForm[] }> = [
  { name: /^ratelimit(-|$)/, readBy: ["contract", "ietf-draft", "ietf-draft-7"] },
  { name: /^x-ratelimit-/, readBy: ["x-ratelimit"] },
  { name: /^x-rate-limit-/, readBy: ["x-rate-limit"] },
];

/**
 * The rate-limit headers of every family none of whose forms `readRateLimitHints` read from them (`forms`, what it
 * said it read): the reader's gap, not the API's. For `check-api`; the pacing needs none of it.
 */
export function unreadHints(headers: Record<string, string | undefined>, forms: readonly HintForm[]): UnreadHint[] {
  return HINT_FAMILIES.filter((family) => !family.readBy.some((form) => forms.includes(form))).flatMap((family) =>
    Object.entries(headers)
      .filter(([name, value]) => family.name.test(name) && value !== undefined)
      .map(([name, value]) => ({ name, value: (value as string).slice(0, 120) })),
  );
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
 * How far the two clocks may differ before the API's `Date` is taken for its time: its whole second, and a second more
 * for the answer's way here and a clock a little off (rule 4 of client/pace.ts reads every reset to the second anyway).
 */
const CLOCKS_AGREE_MS = 1000;

/**
 * The API's time when it answered, for the times it states absolutely: `localNow` where the answer's `Date` header
 * (which RFC 9110 asks of every origin server with a clock) agrees with it to within a second either side of the second
 * it names, else that second. A server whose clock is behind states a `Retry-After` date already passed and every Unix
 * reset as passed; one whose clock is ahead states them as far off as it is ahead, beyond the longest `Retry-After` the
 * client waits for. Without a readable `Date`, `localNow`.
 */
export function apiTime(date: string | undefined, localNow: number): number {
  const stated = dateOf(date ?? "");
  if (stated === undefined) return localNow;
  return localNow < stated - CLOCKS_AGREE_MS || localNow > stated + 2 * CLOCKS_AGREE_MS ? stated : localNow;
}

/**
 * Parses an HTTP `Retry-After` value: delta seconds (`"120"`), or an HTTP date. Fractional seconds (`"0.532"`, which
 * rate-limiter-flexible's documented middleware sends) are read too, rounded up to the millisecond. Returns the delay
 * in milliseconds (never negative), or undefined when the value is absent or unreadable.
 */
export function parseRetryAfter(value: string | undefined | null, now: number): number | undefined {
  if (value === undefined || value === null) return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.ceil(Number(text) * 1000);
  return millisecondsUntil(text, now);
}

/** Milliseconds until a moment written as a date ({@link dateOf}), never negative; undefined for any other value. */
function millisecondsUntil(text: string, now: number): number | undefined {
  const at = dateOf(text);
  return at === undefined ? undefined : Math.max(0, at - now);
}

/**
 * A moment written as a date: an HTTP date, ISO 8601, or what JavaScript's `String(date)` writes. Only a value with
 * letters can be one (Date.parse also accepts loose formats such as "2"); undefined for any other.
 */
function dateOf(text: string): number | undefined {
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : at;
}

/** 2001-09-09 in Unix seconds: no quota window lasts that long, so a larger reset is a point in time. */
const UNIX_TIME_FLOOR_SECONDS = 1_000_000_000;

/**
 * Milliseconds until a reset stated as a number, in any form: delta seconds, or a Unix time in seconds or milliseconds,
 * told apart by size (GitHub and Okta send Unix seconds, express-rate-limit's `X-RateLimit-Reset` too, others deltas).
 * A Unix time already passed gives how long ago, below 0.
 */
export function resetMsOf(reset: number, now: number): number {
  if (reset >= UNIX_TIME_FLOOR_SECONDS) return unixTimeMs(reset) - now;
  return reset * 1000;
}

/** Whether a reset stated as a number is a Unix time (in seconds or milliseconds) rather than delta seconds. */
function isUnixTime(reset: number): boolean {
  return reset >= UNIX_TIME_FLOOR_SECONDS;
}

/**
 * The three-counter forms: `<prefix>limit`, `-remaining` and `-reset`: delta seconds or a Unix time ({@link resetMsOf}),
 * or a date, as middleware written from rate-limiter-flexible's documentation sends it (`String(new Date(...))`).
 */
function counters(headers: Record<string, string | undefined>, prefix: string, now: number): Quota | undefined {
  // Early drafts allow a policy after the number (`10, 10;w=1`): the first number is the value.
  const number = (name: string) => {
    const match = /^\s*(\d+)(?:\.\d+)?\s*(?:[,;]|$)/.exec(headers[prefix + name] ?? "");
    return match ? Number(match[1]) : undefined;
  };
  const limit = number("limit");
  const remaining = number("remaining");
  const reset = number("reset");
  const resetMs = reset !== undefined ? resetMsOf(reset, now) : millisecondsUntil((headers[prefix + "reset"] ?? "").trim(), now);
  if (limit === undefined || remaining === undefined || resetMs === undefined || limit < 1) return undefined;
  return { limit, remaining: Math.min(remaining, limit), resetMs, resetIsMoment: reset === undefined || isUnixTime(reset) };
}

/**
 * The IETF draft-07 form, a dictionary in one field: `RateLimit: limit=10, remaining=9, reset=1` (express-rate-limit's
 * `standardHeaders: "draft-7"`, beside `RateLimit-Policy: 10;w=1`, which adds nothing the dictionary lacks).
 */
function draft7Quota(state: string | undefined, now: number): Quota | undefined {
  if (!state) return undefined;
  const members = new Map<string, number>();
  for (const member of state.split(",")) {
    const match = /^\s*(limit|remaining|reset)\s*=\s*(\d{1,15})\s*(?:;.*)?$/.exec(member);
    if (match) members.set(match[1]!, Number(match[2]));
  }
  const [limit, remaining, reset] = [members.get("limit"), members.get("remaining"), members.get("reset")];
  if (limit === undefined || remaining === undefined || reset === undefined || limit < 1) return undefined;
  return { limit, remaining: Math.min(remaining, limit), resetMs: resetMsOf(reset, now), resetIsMoment: isUnixTime(reset) };
}

/**
 * The current draft's fields: `RateLimit: "default";r=42;t=17` (what is left, seconds to the reset) and
 * `RateLimit-Policy: "default";q=100;w=60` (the quota, its window), lists of named items matched by name. A
 * `RateLimit` item without `t` is whole again within the policy's window `w` (the draft's default), one without `r` or
 * a readable name is ignored.
 */
function draftQuotas(state: string | undefined, policy: string | undefined, now: number): Quota[] {
  const policies = new Map(structuredList(policy).map((item) => [item.name, item.params]));
  return structuredList(state).flatMap(({ name, params }) => {
    const remaining = params.get("r");
    const quota = policies.get(name)?.get("q");
    const reset = params.get("t") ?? policies.get(name)?.get("w");
    if (remaining === undefined || reset === undefined) return [];
    const limit = quota !== undefined && quota >= 1 ? quota : Math.max(1, remaining);
    return [{ limit, remaining: Math.min(remaining, limit), resetMs: resetMsOf(reset, now), resetIsMoment: isUnixTime(reset) }];
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
    case "ietf-draft-7":
      return { "ratelimit-policy": `${limit};w=${Math.max(1, Math.ceil(quota.windowSeconds))}`, ratelimit: `limit=${limit}, remaining=${remaining}, reset=${delta}` };
    case "x-ratelimit":
      return { "x-ratelimit-limit": String(limit), "x-ratelimit-remaining": String(remaining), "x-ratelimit-reset": unix, "x-ratelimit-used": String(limit - remaining) };
    case "x-rate-limit":
      return { "x-rate-limit-limit": String(limit), "x-rate-limit-remaining": String(remaining), "x-rate-limit-reset": unix };
  }
}
