/**
 * The contract check: each assumption the provider makes about the API (docs/api-contract.md), tried against a
 * server, with what was seen and what the provider does about it. Read-only unless `buy` names a plan: then it buys
 * that plan once (twice if the server ignores `Idempotency-Key`), replays the purchase, and reads the order until it
 * is ready.
 *
 * An assumption is `breaking` when a server that differs makes the provider fail or risk money; the others cost
 * something (a lost detail, more requests) but the provider works. Where the provider reads an answer, the effect
 * quotes what its client says of it, so a user sees the message they would meet.
 */
import { randomBytes } from "node:crypto";
import { type Clock, ProxyApiClient, realClock } from "../client";
import {
  HINT_FORM_NAMES,
  isPendingState,
  isReplayed,
  isSpentState,
  isTargetState,
  nextPageLink,
  orderNamedBy,
  PENDING_ORDER_STATES,
  PROXY_TYPES,
  readRateLimitHints,
  readState,
  SPENT_ORDER_STATES,
  TARGET_ORDER_STATES,
  unreadHints,
  type UnreadHint,
} from "../contract";
import { orderWire, problemDocumentWire, proxyPageWire, proxyWire, readWire, usageWire } from "../contract/wire";
import { describe, send, type Probe, type Seen } from "./probe";

/** One assumption, as the check found it. */
export interface Finding {
  /** The assumption, in a sentence. */
  assumption: string;
  /** Whether the server keeps it; null when it could not be checked (the reason is in `seen`). */
  holds: boolean | null;
  /** Whether a server that differs makes the provider fail or risk money. */
  breaking: boolean;
  /** What the server did. */
  seen: string;
  /** What the provider does, given what was seen. */
  effect: string;
}

/** What to check. */
export interface CheckOptions {
  /** The API's base URL, without `/v1`. */
  baseUrl: string;
  /** The account's key. It is sent only as the contract says, and never printed. */
  apiKey: string;
  /** Buy this plan once to check purchases, replays and readiness. Read-only when undefined. */
  buy?: string;
  /** How long to wait for the bought order to be ready, in milliseconds. @default 1200000 (20 minutes) */
  readyTimeoutMs?: number;
  /** Called as each finding is made (for progress). */
  onFinding?: (finding: Finding) => void;
  /**
   * The time the check's own pauses and its wait for a bought order pass on (tests pass the sandbox's, which moves
   * instead of waiting); its API client's retries keep the real time. @default the real clock
   */
  clock?: Clock;
}

const WORKS = "Works.";
const KNOWN_STATES: readonly string[] = [...PENDING_ORDER_STATES, ...TARGET_ORDER_STATES, ...SPENT_ORDER_STATES];
const PROBLEM_JSON = /^application\/problem\+json/;

/** Runs every check; resolves with the findings in the order they were made. Never rejects for a server's answer. */
export async function checkApi(options: CheckOptions): Promise<Finding[]> {
  return new ApiCheck(options).run();
}

/** Whether any breaking assumption differs: the check's exit status is 1 then. */
export function anyBreaking(findings: readonly Finding[]): boolean {
  return findings.some((f) => f.breaking && f.holds === false);
}

/** Whether nothing could be checked (no answer, the key refused, no API at the URL): the exit status is 2 then. */
export function nothingChecked(findings: readonly Finding[]): boolean {
  return findings.length === 1 && findings[0]!.holds === null;
}

class ApiCheck {
  private readonly findings: Finding[] = [];
  private readonly answers: Seen[] = [];
  /** The forms other than the contract's that records came in (readWire), as read. */
  private readonly rewritten: string[] = [];
  private readonly client: ProxyApiClient;
  private readonly clock: Clock;

  constructor(private readonly options: CheckOptions) {
    this.client = new ProxyApiClient({ baseUrl: options.baseUrl, apiKey: options.apiKey, maxAttempts: 2, initialRetryDelayMs: 200, callDeadlineMs: 30_000 });
    this.clock = options.clock ?? realClock;
  }

  async run(): Promise<Finding[]> {
    const reachable = await this.authentication();
    if (reachable) {
      await this.wrongKey();
      await this.usage();
      await this.unknownOrder();
      // After a purchase the account holds proxies, so the list's pages and filters can be seen.
      if (this.options.buy !== undefined) await this.purchase(this.options.buy);
      await this.list();
      this.acrossAnswers();
      this.contractForms();
    }
    return this.findings;
  }

  /** The forms other than the contract's that the records read were in, each read as the contract's (contract/wire.ts). */
  private contractForms(): void {
    const forms = [...new Set(this.rewritten)];
    this.note({
      assumption: "Records come in the contract's forms: ids and times as strings, integers as numbers, each record the answer's body itself, names as the contract writes them.",
      holds: forms.length === 0,
      breaking: false,
      seen: forms.length === 0 ? "every record read was in the contract's forms" : `records with ${forms.slice(0, 8).join(", ")}${forms.length > 8 ? ", ..." : ""}`,
      effect: forms.length === 0 ? WORKS : "Works: the provider reads each as the contract's form (an integer id as its decimal string, a Unix time as RFC 3339, digits as the integer, the record out of its envelope, a camelCase name as the contract's).",
    });
  }

  private note(finding: Finding): void {
    const redacted = { ...finding, seen: this.redact(finding.seen), effect: this.redact(finding.effect) };
    this.findings.push(redacted);
    this.options.onFinding?.(redacted);
  }

  /** A server might echo the key in an answer; the report never shows it. */
  private redact(text: string): string {
    return this.options.apiKey.length >= 4 ? text.split(this.options.apiKey).join("[api key]") : text;
  }

  /**
   * Sends a probe; a `429` is waited out (its Retry-After, at most 10 s, five times at most) and sent again, so that
   * the API's rate limit does not read as an answer to the probe. Every answer counts for the findings across answers.
   */
  private async call(probe: Omit<Probe, "authorization"> & { authorization?: string | null }): Promise<Seen> {
    const authorization = probe.authorization === null ? undefined : (probe.authorization ?? `Bearer ${this.options.apiKey}`);
    for (let attempt = 1; ; attempt++) {
      const seen = await send(this.options.baseUrl, { ...probe, authorization });
      this.answers.push(seen);
      if (seen.status !== 429 || attempt >= 5) return seen;
      const pause = readRateLimitHints(seen.headers, this.clock.now()).retryAfterMs;
      await this.clock.sleep(pause !== undefined && pause > 0 ? Math.min(pause, 10_000) : 1000);
    }
  }

  /** What the provider's client says when it reads this endpoint (its error message), or undefined when it reads it. */
  private async clientSays(read: () => Promise<unknown>): Promise<string | undefined> {
    try {
      await read();
      return undefined;
    } catch (error) {
      return (error instanceof Error ? error.message : String(error)).replace(/\.\s*$/, "");
    }
  }

  /**
   * The first request: whether anything can be checked. No answer, a `404` (the base URL), or the key refused with a
   * Bearer challenge or none, check nothing (`holds: null`: the command exits 2, since the fix is the user's); a
   * challenge of another scheme says the server expects the key another way (breaking).
   */
  private async authentication(): Promise<boolean> {
    const assumption = "The API answers at the base URL, and accepts the key as `Authorization: Bearer <key>`.";
    let seen: Seen;
    try {
      seen = await this.call({ method: "GET", path: "/usage" });
    } catch (error) {
      this.note({
        assumption,
        holds: null,
        breaking: true,
        seen: `GET /v1/usage got no answer: ${error instanceof Error ? error.message : String(error)}`,
        effect: `Nothing was checked: nothing answered at ${this.options.baseUrl}. Check the base URL (without /v1), that the server is up, and the network (or HTTPS_PROXY).`,
      });
      return false;
    }
    if (seen.status >= 200 && seen.status < 300) {
      this.note({ assumption, holds: true, breaking: true, seen: describe(seen), effect: WORKS });
      return true;
    }
    const said = (await this.clientSays(() => this.client.getUsage())) ?? `status ${seen.status}`;
    const scheme = /^\s*([\w-]+)/.exec(seen.headers["www-authenticate"] ?? "")?.[1];
    const challenge = scheme ? ` It asks for: WWW-Authenticate: ${seen.headers["www-authenticate"]}.` : "";
    const refused = (seen.status === 401 || seen.status === 403) && (scheme === undefined || scheme.toLowerCase() === "bearer");
    const elsewhere = refused ? await this.keyAcceptedElsewhere() : undefined;
    if (elsewhere) {
      this.note({
        assumption,
        holds: false,
        breaking: true,
        seen: `${describe(seen)}.${challenge} The same key was accepted as ${elsewhere}.`,
        effect: `Every operation fails, with: ${said} The API takes the key as ${elsewhere}; the provider sends only \`Authorization: Bearer <key>\`.`,
      });
      return false;
    }
    const unchecked = refused || seen.status === 404;
    this.note({
      assumption,
      holds: unchecked ? null : false,
      breaking: true,
      seen: `${describe(seen)}.${challenge}`,
      effect: refused
        ? `Nothing was checked: the server refused the key (${said}). Check the key: PROXY_API_KEY, or the stack's proxy:apiKey.`
        : seen.status === 404
          ? `Nothing was checked: ${said} Check the base URL: it must not end in /v1.`
          : `Every operation fails, with: ${said} The server expects the key another way; the provider sends only the Bearer header.`,
    });
    return false;
  }

  /**
   * Where else the API takes the key, when it refused it as a Bearer token: each of the places real APIs read keys from,
   * tried once in this order; the first accepted is named (with the key shown as `<key>`), or undefined.
   */
  private async keyAcceptedElsewhere(): Promise<string | undefined> {
    const key = this.options.apiKey;
    const places: Array<{ named: string; authorization: string | null; headers?: Record<string, string> }> = [
      { named: "`X-Api-Key: <key>`", authorization: null, headers: { "x-api-key": key } },
      { named: "`Authorization: <key>` (no scheme)", authorization: key },
      { named: "`Authorization: Token <key>`", authorization: `Token ${key}` },
      { named: "`Authorization: Basic` with the key as the username (as Stripe takes it)", authorization: `Basic ${Buffer.from(`${key}:`).toString("base64")}` },
      { named: "`Api-Key: <key>`", authorization: null, headers: { "api-key": key } },
    ];
    for (const place of places) {
      const seen = await this.call({ method: "GET", path: "/usage", authorization: place.authorization, ...(place.headers ? { headers: place.headers } : {}) });
      if (seen.status >= 200 && seen.status < 300) return place.named;
    }
    return undefined;
  }

  private async wrongKey(): Promise<void> {
    const seen = await this.call({ method: "GET", path: "/usage", authorization: `Bearer sk_pulumi_proxy_check_${randomBytes(6).toString("hex")}` });
    const holds = seen.status === 401;
    this.note({
      assumption: "A key the API does not know answers `401`.",
      holds,
      breaking: false,
      seen: describe(seen),
      effect: holds
        ? WORKS
        : seen.status === 403
          ? "Works: a 403 is reported as a key that may not do this, rather than one that is not accepted."
          : seen.status < 300
            ? "Works, but this server accepts any key: make sure it is the API you mean to buy from."
            : `Works; a wrong key shows as status ${seen.status} rather than as a key that is not accepted.`,
    });
    const problem = readWire(problemDocumentWire, seen.json);
    this.note({
      assumption: "Errors are `application/problem+json` with `code` and `request_id`.",
      holds: PROBLEM_JSON.test(seen.headers["content-type"] ?? "") && problem.ok,
      breaking: false,
      seen: describe(seen),
      effect:
        PROBLEM_JSON.test(seen.headers["content-type"] ?? "") && problem.ok
          ? WORKS
          : "Works: errors still show the status and the text the server sent, but are told apart by status alone, not by code.",
    });
  }

  private async usage(): Promise<void> {
    const seen = await this.call({ method: "GET", path: "/usage" });
    const parsed = readWire(usageWire, seen.json, this.rewritten);
    const said = parsed.ok ? undefined : await this.clientSays(() => this.client.getUsage());
    this.note({
      assumption: "`GET /v1/usage` answers the contract's shape: `period`, `as_of`, `bandwidth.used_bytes`/`limit_bytes` and `requests.used`/`limit`, bytes as integers.",
      holds: parsed.ok,
      breaking: true,
      seen: parsed.ok ? describe(seen) : `${describe(seen)} (${parsed.problem})`,
      effect: parsed.ok
        ? WORKS
        : `getUsage fails, with: ${said ?? parsed.problem}. Refresh also uses this endpoint to tell a removed order from a wrong base URL, so removed orders are kept in the state instead of being dropped.`,
    });
  }

  private async list(): Promise<void> {
    const seen = await this.call({ method: "GET", path: "/proxies?limit=1" });
    const parsed = readWire(proxyPageWire, seen.json, this.rewritten);
    if (!parsed.ok) {
      const said = await this.clientSays(() => this.client.listProxies());
      this.note({
        assumption: "`GET /v1/proxies` answers `{ data: [proxy], has_more, next_cursor }`, each proxy with `ip`, `port`, `type` and `country`.",
        holds: false,
        breaking: true,
        seen: `${describe(seen)} (${parsed.problem})`,
        effect: `getProxies fails, with: ${said ?? parsed.problem}. Refresh reads every order by id instead of the list.`,
      });
      return;
    }
    this.note({
      assumption: "`GET /v1/proxies` answers `{ data: [proxy], has_more, next_cursor }`, each proxy with `ip`, `port`, `type` and `country`.",
      holds: true,
      breaking: true,
      seen: describe(seen),
      effect: WORKS,
    });
    await this.pages(seen, parsed.data);
    await this.filters(parsed.data.data);
    const extra = [...new Set(parsed.data.data.flatMap((proxy) => Object.keys(proxy).filter((key) => !(key in proxyWire.shape))))];
    this.note({
      assumption: "Fields the contract does not name are kept, not refused.",
      holds: true,
      breaking: false,
      seen: extra.length > 0 ? `proxies carry fields the contract does not name: ${extra.join(", ")}` : "no fields beyond the contract's in the first page",
      effect: extra.length > 0 ? "Works: they are kept in getProxies' results (renamed to camelCase)." : WORKS,
    });
  }

  private async pages(first: Seen, page: { data: unknown[]; has_more?: boolean; next_cursor?: string | null }): Promise<void> {
    const assumption = "The list comes in pages: `limit` is honoured, and `next_cursor` fetches the next page while `has_more` is true.";
    const linked = page.has_more === undefined ? nextPageLink(first.headers["link"]) : undefined;
    if (linked) {
      this.note({
        assumption,
        holds: false,
        breaking: false,
        seen: `limit=1 answered ${page.data.length} proxies without \`has_more\`, and a Link header naming the next page${linked.cursor === undefined ? ` without a cursor (${linked.target})` : ""}`,
        effect:
          linked.cursor === undefined
            ? "Works: the next page the Link header names is asked for with its query as written, where it is this list's (elsewhere, getProxies fails naming it)."
            : "Works: the cursor of the next page the Link header names is followed.",
      });
      return;
    }
    if (page.has_more === true && page.next_cursor) {
      const next = await this.call({ method: "GET", path: `/proxies?limit=1&cursor=${encodeURIComponent(page.next_cursor)}` });
      const ok = readWire(proxyPageWire, next.json, this.rewritten).ok && next.status === 200;
      this.note({
        assumption,
        holds: ok && page.data.length <= 1,
        breaking: false,
        seen: `${describe(first)}; then ${describe(next)}`,
        effect: ok ? WORKS : "getProxies fails past the first page; refresh reads each order by id instead of the list.",
      });
      return;
    }
    if (page.data.length > 1) {
      this.note({
        assumption,
        holds: false,
        breaking: false,
        seen: `limit=1 answered ${page.data.length} proxies${page.has_more === undefined ? " without `has_more`" : ""}`,
        effect: "Works: an answer without `has_more` is read as the whole list in one page. If the server cuts long lists short without saying so, getProxies misses proxies.",
      });
      return;
    }
    this.note({
      assumption,
      holds: page.has_more === undefined ? null : true,
      breaking: false,
      seen:
        page.has_more === undefined
          ? "the first page has no `has_more` (the seed's shape) and the account has at most one proxy, so paging could not be seen"
          : "the account has at most one proxy; the page says there is no more",
      effect: page.has_more === undefined ? "Works: an answer without `has_more` is read as the whole list." : WORKS,
    });
  }

  private async filters(proxies: ReadonlyArray<{ type: string }>): Promise<void> {
    const bad = await this.call({ method: "GET", path: "/proxies?type=not-a-proxy-type" });
    this.note({
      assumption: "An unknown proxy type in the list's `type` filter answers `400`.",
      holds: bad.status === 400,
      breaking: false,
      seen: describe(bad),
      effect:
        bad.status === 400
          ? WORKS
          : "Works, but a misspelt `type` in getProxies is not reported: it returns what the server chose to return for it.",
    });
    const type = proxies[0]?.type ?? PROXY_TYPES[0];
    const filtered = await this.call({ method: "GET", path: `/proxies?limit=100&type=${encodeURIComponent(type)}` });
    const page = readWire(proxyPageWire, filtered.json, this.rewritten);
    const others = page.ok ? page.data.data.filter((p) => p.type !== type).length : 0;
    this.note({
      assumption: "The list's filters (`type`, `country`, `order_id`) are applied by the server.",
      holds: page.ok && others === 0,
      breaking: false,
      seen: page.ok ? `type=${type} answered ${page.data.data.length} proxies${others > 0 ? `, ${others} of another type` : ", all of that type"}` : describe(filtered),
      effect: others > 0 ? "getProxies with `type`, `country` or `orderId` returns proxies that do not match: the stack's outputs would be wrong." : WORKS,
    });
  }

  private async unknownOrder(): Promise<void> {
    const id = `ord_pulumi_proxy_check_${randomBytes(6).toString("hex")}`;
    const seen = await this.call({ method: "GET", path: `/orders/${id}` });
    this.note({
      assumption: "An order id the account does not have answers `404`.",
      holds: seen.status === 404,
      breaking: false,
      seen: describe(seen),
      effect:
        seen.status === 404
          ? WORKS
          : `Works with something lost: a removed order is never recognised as gone, so its refresh fails with status ${seen.status} until it is removed from the state by hand (\`pulumi state delete\`).`,
    });
  }

  private async purchase(planId: string): Promise<void> {
    const key = `pulumi-proxy-check-${randomBytes(8).toString("hex")}`;
    const body = JSON.stringify({ plan_id: planId });
    const first = await this.call({ method: "POST", path: "/orders", headers: { "idempotency-key": key }, body });
    const made = readWire(orderWire, first.json, this.rewritten);
    if (first.status >= 300 || !made.ok) {
      const named = orderNamedBy(first.json, first.headers.location);
      const unread = made.ok ? "" : made.problem;
      this.note({
        assumption: "`POST /v1/orders` buys the plan: `201` with the order and `Location`.",
        holds: false,
        breaking: first.status < 300 && !named,
        seen: describe(first),
        effect:
          first.status >= 300
            ? `Nothing was bought, so purchases, replays and readiness were not checked. Fix what the answer says (a plan id the API knows, a balance) and run the check again.`
            : named
              ? `Works: a purchase's answer cannot be read (${unread}), but it names the order it made (${named}), which is then read by id and waited for as any other (read once with \`waitForReady: false\`).`
              : `A purchase is made but its answer cannot be read (${unread}) nor names the order: create fails after buying, and nothing records the order; the next \`pulumi up\` finds it again only by replaying the same idempotency key, while the API keeps replays (24 hours in the contract).`,
      });
      if (first.status >= 300 || !named) return;
      await this.replay(key, body, named);
      await this.readiness(named, "pending");
      return;
    }
    const order = made.data;
    const created = first.status === 201 && Boolean(first.headers.location);
    this.note({
      assumption: "`POST /v1/orders` buys the plan: `201` with the order and `Location`.",
      holds: created,
      breaking: false,
      seen: `${describe(first)}; Location: ${first.headers.location ?? "(none)"}`,
      effect: created ? WORKS : "Works: any 2xx with an order is read as the purchase; logs cannot tell a first purchase from a replay.",
    });
    this.note({
      assumption: "An order names the plan it is of (`plan_id`).",
      holds: order.plan_id !== undefined,
      breaking: false,
      seen: order.plan_id !== undefined ? `plan_id: ${order.plan_id}` : `order ${order.id} has no plan_id`,
      effect:
        order.plan_id !== undefined
          ? WORKS
          : "Works with something lost: an order bought by a stack is of the plan it declares, but `pulumi import` cannot tell an order's plan (declare it with `adoptOrderId` instead), and `adoptOrderId` takes the order to be of the plan the program names.",
    });
    await this.replay(key, body, order.id);
    await this.readiness(order.id, order.status);
  }

  private async replay(key: string, body: string, id: string): Promise<void> {
    let again = await this.call({ method: "POST", path: "/orders", headers: { "idempotency-key": key }, body });
    for (let tries = 0; again.status === 409 && tries < 10; tries++) {
      await this.clock.sleep(1000);
      again = await this.call({ method: "POST", path: "/orders", headers: { "idempotency-key": key }, body });
    }
    const order = readWire(orderWire, again.json, this.rewritten);
    // An answer the provider cannot read is still read for the order it names, as a purchase's is.
    const againId = order.ok ? order.data.id : again.status < 300 ? orderNamedBy(again.json, again.headers.location) : undefined;
    const sameOrder = againId === id;
    if (againId !== undefined && !sameOrder) {
      this.note({
        assumption: "The same `Idempotency-Key` and body answer the same order again, and buy nothing.",
        holds: false,
        breaking: true,
        seen: `The replay bought a second order: ${id} and then ${againId} (${describe(again)}).`,
        effect:
          "THIS SERVER IGNORES Idempotency-Key. Every retry after a lost answer, every resumed `pulumi up` and every timeout buys the plan again, and money is lost. Do not point a stack at it. This check bought two orders; both stay with the account.",
      });
      return;
    }
    const replayed = isReplayed(again.headers);
    this.note({
      assumption: "The same `Idempotency-Key` and body answer the same order again, and buy nothing.",
      holds: sameOrder,
      breaking: true,
      seen: sameOrder ? `${describe(again)}; Idempotent-Replayed: ${again.headers["idempotent-replayed"] ?? "(none)"}` : describe(again),
      effect: sameOrder
        ? replayed
          ? WORKS
          : "Works: the same order came back, though without `Idempotent-Replayed: true`."
        : `A retried purchase fails with status ${again.status} instead of finding its order: a create interrupted after the purchase cannot recover it and stops with an error (nothing is bought twice).`,
    });
  }

  private async readiness(id: string, firstStatus: string): Promise<void> {
    const deadline = this.clock.now() + (this.options.readyTimeoutMs ?? 20 * 60_000);
    const states = new Set<string>([firstStatus]);
    let estimate = false;
    let last: Seen | undefined;
    for (;;) {
      last = await this.call({ method: "GET", path: `/orders/${encodeURIComponent(id)}` });
      const order = readWire(orderWire, last.json, this.rewritten);
      if (last.status === 200 && order.ok) {
        states.add(order.data.status);
        if (order.data.estimated_ready_at) estimate = true;
        if (!isPendingState(readState(order.data.status))) break;
      } else if (last.status === 200) break;
      if (this.clock.now() >= deadline) break;
      const hint = readRateLimitHints(last.headers, this.clock.now()).retryAfterMs;
      await this.clock.sleep(hint !== undefined && hint > 0 ? Math.min(hint, 10_000) : 2000);
    }
    const unknown = [...states].filter((s) => !KNOWN_STATES.includes(readState(s)));
    const recased = [...states].filter((s) => readState(s) !== s);
    this.note({
      assumption: `Orders move through the contract's states: ${KNOWN_STATES.join(", ")}.`,
      holds: unknown.length === 0,
      breaking: true,
      seen: `order ${id} went through ${[...states].join(" -> ")}`,
      effect:
        unknown.length === 0
          ? recased.length === 0
            ? WORKS
            : `Works: ${recased.map((s) => `"${s}"`).join(", ")} read as the contract's ${recased.map(readState).join(", ")}.`
          : `create fails fast, with: Order ${id} is in the state "${unknown[0]}", which this provider does not know (expected one of ${KNOWN_STATES.join(", ")}). The API may have changed; please report it.`,
    });
    this.note({
      assumption: "A pending order carries `estimated_ready_at` (optional in the contract).",
      holds: estimate ? true : null,
      breaking: false,
      seen: estimate ? "estimated_ready_at was sent" : "no estimated_ready_at was sent",
      effect: estimate ? WORKS : "Works: the provider polls on its own schedule instead (a few more reads per order).",
    });
    await this.ended(id, last);
  }

  /** The findings on the last answer about order `id`: active with its proxies, and then in the list. */
  private async ended(id: string, last: Seen | undefined): Promise<void> {
    const final = last ? readWire(orderWire, last.json, this.rewritten) : undefined;
    const status = final?.ok ? readState(final.data.status) : undefined;
    if (status === undefined || !isTargetState(status)) {
      const unread = final !== undefined && !final.ok && last?.status === 200 ? final.problem : undefined;
      this.note({
        assumption: "A bought order becomes `active`, with its `proxies`.",
        holds: unread === undefined ? null : false,
        breaking: unread !== undefined,
        seen:
          unread !== undefined
            ? `order ${id}'s answer cannot be read (${unread})`
            : status && isSpentState(status)
              ? `order ${id} ended ${status}`
              : `order ${id} was not active by the deadline${last ? ` (${describe(last)})` : ""}`,
        effect:
          unread !== undefined
            ? "Every read of an order fails, naming what its answer lacks: create records the order as not yet read, and no later run can finish it."
            : "Readiness and the list could not be checked; run the check again with a plan that provisions.",
      });
      return;
    }
    const proxies = final?.ok ? final.data.proxies : undefined;
    this.note({
      assumption: "A bought order becomes `active`, with its `proxies`.",
      holds: Array.isArray(proxies),
      breaking: false,
      seen: `order ${id} is active with ${Array.isArray(proxies) ? `${proxies.length} proxies` : "no `proxies` field"}`,
      effect: Array.isArray(proxies)
        ? WORKS
        : "Works while the list shows them with their `order_id` (the next finding): an active order's proxies are read from the list, a request more for the orders that become active together.",
    });
    await this.listed(id, Array.isArray(proxies));
  }

  /** The list's finding for order `id`; `inOrder`: the order's record named its proxies, so the list is not their only source. */
  private async listed(id: string, inOrder: boolean): Promise<void> {
    const lost = `Works with something lost: refresh reads every order by id instead of the list (one request per order)${
      inOrder ? "" : ", and the orders' outputs show no proxies (their records name none)"
    }.`;
    let seen: Seen | undefined;
    for (let tries = 0; tries < 5; tries++) {
      seen = await this.call({ method: "GET", path: `/proxies?limit=1000&order_id=${encodeURIComponent(id)}` });
      const page = readWire(proxyPageWire, seen.json, this.rewritten);
      if (page.ok && page.data.data.length > 0) {
        const tagged = page.data.data.every((p) => p.order_id === id);
        this.note({
          assumption: "An active order's proxies are in the list, each with its `order_id`.",
          holds: tagged,
          breaking: false,
          seen: `order_id=${id} listed ${page.data.data.length} proxies${tagged ? ", each with its order_id" : ", not all with this order_id"}`,
          effect: tagged ? WORKS : lost,
        });
        return;
      }
      await this.clock.sleep(1000);
    }
    this.note({
      assumption: "An active order's proxies are in the list, each with its `order_id`.",
      holds: false,
      breaking: false,
      seen: seen ? `${describe(seen)} (after 5 tries)` : "no answer",
      effect: lost,
    });
  }

  /** What shows across every answer: field casing, the request id and the rate-limit headers. */
  private acrossAnswers(): void {
    const camel = [...new Set(this.answers.flatMap((a) => camelKeys(a.json)))];
    this.note({
      assumption: "Field names are `snake_case` on the wire.",
      holds: camel.length === 0,
      breaking: false,
      seen: camel.length === 0 ? "every field name was snake_case" : `camelCase field names: ${camel.slice(0, 8).map((k) => `\`${k}\``).join(", ")}`,
      effect:
        camel.length === 0
          ? WORKS
          : "Works: a field the contract names is read in camelCase too (`planId` as `plan_id`, `hasMore` as `has_more`); fields it does not name are kept as they are.",
    });
    const without = this.answers.filter((a) => !a.headers["x-request-id"]);
    this.note({
      assumption: "Every answer carries `X-Request-Id`.",
      holds: without.length === 0,
      breaking: false,
      seen: without.length === 0 ? `all ${this.answers.length} answers did` : `${without.length} of ${this.answers.length} answers did not (first: ${without[0]?.method} /v1${without[0]?.path})`,
      effect: without.length === 0 ? WORKS : "Works: errors show no request id to quote to the API's support.",
    });
    this.rateLimitHints();
    const refused = this.answers.filter((a) => a.status === 429);
    if (refused.length > 0) {
      const bare = refused.filter((a) => readRateLimitHints(a.headers, this.clock.now()).retryAfterMs === undefined);
      this.note({
        assumption: "A `429` carries `Retry-After`.",
        holds: bare.length === 0,
        breaking: false,
        seen: `${refused.length} answers were 429, ${bare.length} without a Retry-After that could be read`,
        effect: bare.length === 0 ? WORKS : "Works: the provider backs off on its own schedule when no Retry-After is sent.",
      });
    }
  }

  /**
   * Which form of rate-limit hints the answers used, and whether they came with successes (the API's coordination). A
   * rate-limit header no form could read is named with its value: the reader, not the API, is then the gap.
   */
  private rateLimitHints(): void {
    const read = this.answers.map((a) => {
      const hints = readRateLimitHints(a.headers, Date.now());
      return { status: a.status, hints, unread: unreadHints(a.headers, hints.forms) };
    });
    const forms = [...new Set(read.flatMap((r) => r.hints.forms))];
    const successes = read.filter((r) => r.status >= 200 && r.status < 300);
    const hintedSuccesses = successes.filter((r) => r.hints.quota !== undefined).length;
    const everyAnswer = successes.length > 0 && hintedSuccesses === successes.length;
    const named = forms.map((form) => HINT_FORM_NAMES[form]).join("; ");
    const unread = unreadHeaders(read.map((r) => r.unread));
    this.note({
      assumption: "Every answer carries rate-limit hints, successes included, in a form the contract names.",
      holds: everyAnswer && unread.length === 0,
      breaking: false,
      seen: [
        forms.length === 0 ? "no answer carried rate-limit hints in a form the provider reads" : `${named}, on ${hintedSuccesses} of ${successes.length} successful answers`,
        ...unread.map((u) => `\`${u.name}: ${u.value}\` on ${u.answers} answers, in a form the provider's reader does not know`),
      ].join("; "),
      effect:
        unread.length > 0
          ? `The reader, not the API, is the gap: the API sends rate-limit headers (${unread.map((u) => `\`${u.name}\``).join(", ")}) that this version of the provider cannot read, so it paces ` +
            (everyAnswer ? "by the forms it does read." : "as if there were none, learning the rate from `429`s. Report the header's form to the provider's maintainers; meanwhile `proxy:maxRateShare` keeps each stack to its part of the key.")
          : everyAnswer
            ? WORKS
            : "Works, at a cost: without hints on every answer, several stacks (or CI jobs, or applications) on one key learn " +
              "the rate from `429`s and see some of them, which are retried. Give each stack its part of the key with " +
              "`proxy:maxRateShare`.",
    });
  }
}

/** The unread headers of many answers, one per name: its first value and on how many answers it came. */
function unreadHeaders(perAnswer: ReadonlyArray<readonly UnreadHint[]>): Array<UnreadHint & { answers: number }> {
  const byName = new Map<string, UnreadHint & { answers: number }>();
  for (const hint of perAnswer.flat()) {
    const seen = byName.get(hint.name);
    if (seen) seen.answers += 1;
    else byName.set(hint.name, { ...hint, answers: 1 });
  }
  return [...byName.values()];
}

/** Keys in camelCase (a lower-case letter followed by an upper-case one), anywhere in a JSON value. */
function camelKeys(value: unknown): string[] {
  const found = new Set<string>();
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v !== null && typeof v === "object") {
      for (const [key, inner] of Object.entries(v)) {
        if (/[a-z][A-Z]/.test(key)) found.add(key);
        walk(inner);
      }
    }
  };
  walk(value);
  return [...found];
}
