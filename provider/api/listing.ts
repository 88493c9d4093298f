/**
 * Refresh from the list: `GET /v1/proxies` answers up to 1,000 proxies a page, each with the `order_id` that
 * provisioned it, so one page can stand for hundreds of `GET /v1/orders/{id}`. The list is asked for the stack's orders
 * only (`order_id`, up to 100 ids a request), so what other stacks own in the account costs nothing; an API that
 * ignores that filter answers the whole list, which is then read as it always was. What the list implies (docs/api-
 * contract.md): it holds the proxies of `active` orders only, so an order listed with the proxies the state holds is
 * active and unchanged, and needs no read; an order that is absent (expired, cancelled, removed, or just bought and
 * not yet listed) or whose proxies changed is read by id, as before. The list never decides that an order is gone.
 *
 * Economy: it must never cost much more than reading every order, and it takes the cheaper of the account's pages and
 * the stack's batches of ids, whichever the account is: after the first page, it pages on while that page says the
 * pages are the cheaper (an account that is mostly the stack's: a fleet of 1,000 alone costs its pages, not ten
 * batches). It lists only for two orders or more, stops once the pages fetched would outnumber the orders still
 * unmatched, stops after a page that matched none of them (an account much larger than the stack), and gives up on the
 * list when its proxies carry no `order_id` (the field is optional in the contract).
 *
 * The engine reads a stack's resources one by one, several at a time, in one provider process: reads that arrive
 * within a moment of each other share one listing, and later reads of the same refresh use what it fetched.
 */
import { type ProxyApiClient, ProxyError } from "../../client";
import { MAX_ORDER_ID_FILTER, MAX_PROXY_PAGE_SIZE, type ProxyPage, type ProxyRecord } from "../../contract";
import type { ProxyCredential, ProxyInfo } from "../state/order-state";

/** How long reads wait for others to join one listing. */
const GATHER_MS = 50;

/**
 * How long a listing serves later reads. Each Pulumi operation runs a provider process of its own, so this only
 * bounds how stale a long refresh may get: past it, the next read lists again.
 */
const FRESH_MS = 10_000;

/** What listings found: the proxies of each order seen, the orders asked for, and whether the whole list was read. */
interface Found {
  byOrder: Map<string, ProxyRecord[]>;
  complete: boolean;
  /** The orders these listings looked for: one of them that is not in `byOrder` is not listed. */
  covered: ReadonlySet<string>;
}

/** What a refresh's listings found, and when the first of them was read (on the client's clock). */
interface Listing extends Found {
  at: number;
}

/**
 * Lists the account's proxies for `wanted` order ids, by the rules in the module's comment; `largeAccount` (an earlier
 * listing of the refresh found more than a page) asks by order id at once. Resolves with what was seen, or undefined
 * when the list cannot tell: its proxies carry no `order_id`, or listing failed (the orders are then read by id, which
 * reports any error that matters).
 */
export async function listForOrders(
  api: Pick<ProxyApiClient, "listProxyPages">,
  wanted: ReadonlySet<string>,
  largeAccount = false,
): Promise<Found | undefined> {
  if (wanted.size < 2) return { byOrder: new Map(), complete: false, covered: new Set() };
  return listing(api, wanted, largeAccount);
}

/**
 * The proxies of `wanted` orders, asked for by order id at once however few they are (100 a request), or undefined
 * when the list cannot tell: for orders just seen active whose records name no proxies (order-proxies.ts).
 */
export function listByOrderIds(api: Pick<ProxyApiClient, "listProxyPages">, wanted: ReadonlySet<string>): Promise<Found | undefined> {
  return listing(api, wanted, true);
}

async function listing(api: Pick<ProxyApiClient, "listProxyPages">, wanted: ReadonlySet<string>, byId: boolean): Promise<Found | undefined> {
  try {
    return await listPages(api, wanted, byId);
  } catch (error) {
    if (error instanceof ProxyError) return undefined;
    throw error;
  }
}

async function listPages(api: Pick<ProxyApiClient, "listProxyPages">, wanted: ReadonlySet<string>, byId: boolean): Promise<Found | undefined> {
  const byOrder = new Map<string, ProxyRecord[]>();
  const add = (proxies: ProxyRecord[]) => {
    for (const proxy of proxies) {
      if (proxy.orderId === undefined) continue;
      const list = byOrder.get(proxy.orderId) ?? [];
      list.push(proxy);
      byOrder.set(proxy.orderId, list);
    }
  };
  // The account's first page (unless an earlier listing found the account larger): all of a small account, which then
  // answers every read of the refresh; of a larger one mostly the stack's, the next pages, while that is cheaper.
  if (!byId) {
    const pages = api.listProxyPages({ pageSize: MAX_PROXY_PAGE_SIZE });
    try {
      const first = (await pages.next()).value as ProxyPage | undefined;
      if (!first) return { byOrder, complete: true, covered: wanted };
      add(first.proxies);
      if (first.proxies.length > 0 && byOrder.size === 0) return undefined;
      if (first.nextCursor === undefined) return { byOrder, complete: true, covered: wanted };
      if (await pageOn(pages, first, wanted, byOrder, add)) return { byOrder, complete: true, covered: wanted };
    } finally {
      await pages.return(undefined);
    }
  }
  // A larger account: the stack's own orders (those not seen yet), asked by id.
  const ids = [...wanted].filter((id) => !byOrder.has(id));
  let ignored = false;
  for (let start = 0; start < ids.length && !ignored; start += MAX_ORDER_ID_FILTER) {
    const batch = new Set(ids.slice(start, start + MAX_ORDER_ID_FILTER));
    let fetched = 0;
    for await (const page of api.listProxyPages({ pageSize: MAX_PROXY_PAGE_SIZE, orderId: [...batch] })) {
      fetched += 1;
      const before = { batch: unmatched(batch, byOrder), wanted: unmatched(wanted, byOrder) };
      if (page.proxies.some((p) => p.orderId !== undefined && !batch.has(p.orderId))) ignored = true;
      // Such an API starts again from the first page, already read: it is not added twice, and it is no sign that the
      // rest matches nothing.
      const repeat = ignored && fetched === 1 && !byId;
      if (!repeat) add(page.proxies);
      // An API that ignores the filter answers the whole list: read it by the economy's rules (module comment).
      const left = unmatched(ignored ? wanted : batch, byOrder);
      if (ignored && page.nextCursor === undefined) return { byOrder, complete: true, covered: wanted };
      const stop = page.nextCursor === undefined || left === 0 || (!repeat && left === (ignored ? before.wanted : before.batch)) || fetched + 1 > left + (repeat ? 1 : 0);
      if (stop) break;
    }
  }
  return { byOrder, complete: false, covered: wanted };
}

/**
 * After the account's first page, reads its next pages while they cost fewer requests than asking for the stack's
 * orders still unseen by id (100 a request, as many pages as their proxies fill): a page showed `m` of them, so each
 * next page is expected to show as many. It stops at a page that showed none of them, or once it has read a page more
 * than expected (the rest is then asked by id). Returns whether it read the whole list.
 */
async function pageOn(
  pages: AsyncGenerator<ProxyPage>,
  first: ProxyPage,
  wanted: ReadonlySet<string>,
  byOrder: ReadonlyMap<string, ProxyRecord[]>,
  add: (proxies: ProxyRecord[]) => void,
): Promise<boolean> {
  const seen = wanted.size - unmatched(wanted, byOrder);
  const left = wanted.size - seen;
  if (seen === 0 || left === 0) return false;
  const perOrder = first.proxies.filter((p) => p.orderId !== undefined && wanted.has(p.orderId)).length / seen;
  const byId = Math.ceil(left / MAX_ORDER_ID_FILTER) * Math.max(1, Math.ceil((MAX_ORDER_ID_FILTER * perOrder) / MAX_PROXY_PAGE_SIZE));
  const expected = Math.ceil(left / seen);
  if (expected >= byId) return false;
  for (let read = 0; read <= expected && unmatched(wanted, byOrder) > 0; read++) {
    const before = unmatched(wanted, byOrder);
    const next = await pages.next();
    if (next.done) return true;
    add(next.value.proxies);
    if (next.value.nextCursor === undefined) return true;
    if (unmatched(wanted, byOrder) === before) break;
  }
  return false;
}

/** How many of `wanted` the listing has not shown yet. */
function unmatched(wanted: ReadonlySet<string>, byOrder: ReadonlyMap<string, ProxyRecord[]>): number {
  return [...wanted].filter((id) => !byOrder.has(id)).length;
}

/**
 * Whether an order the state holds as active can be kept as it is from what the list shows for it: listed, with the
 * proxies the state holds, none of them past its expiry at `now` (an API that expires orders lazily still lists them).
 */
export function unchangedInList(
  listed: ProxyRecord[] | undefined,
  proxies: ProxyInfo[],
  credentials: ProxyCredential[],
  now: number,
): boolean {
  if (!listed || !sameProxies(listed, proxies, credentials)) return false;
  return listed.every((p) => p.expiresAt === undefined || !(Date.parse(p.expiresAt) <= now));
}

/** Whether `listed` are the proxies the state holds (`proxies` and `credentials`), in any order. */
export function sameProxies(listed: ProxyRecord[], proxies: ProxyInfo[], credentials: ProxyCredential[]): boolean {
  if (listed.length !== proxies.length || listed.length !== credentials.length) return false;
  const key = (p: Partial<ProxyRecord>) =>
    JSON.stringify([p.ip, p.port, p.type, p.country, p.id, p.protocol, p.city, p.expiresAt, p.username, p.password]);
  const held = proxies.map((p, i) => key({ ...p, username: credentials[i]?.username, password: credentials[i]?.password }));
  return JSON.stringify(listed.map(key).sort()) === JSON.stringify(held.sort());
}

/** The listings of one account (account.ts), shared by the reads of its refreshes in flight. */
export class RefreshLister {
  private listing: Listing | undefined;
  private pending: { wanted: Set<string>; result: Promise<Listing | undefined> } | undefined;

  constructor(private readonly api: ProxyApiClient) {}

  /**
   * The proxies the list shows for `orderId`, or undefined when the list cannot tell (not listed, not known, or too
   * few reads to be worth a listing): the caller then reads the order.
   */
  async lookup(orderId: string): Promise<ProxyRecord[] | undefined> {
    // A fresh listing answers every read it can: an order it shows, or one it looked for (then not listed), or any
    // order once the whole list was read. A read it cannot answer joins the next listing, which asks for the orders
    // of a large account by id, so late reads never list from the first page again.
    const clock = this.api.clock;
    const fresh = this.listing && clock.now() - this.listing.at < FRESH_MS ? this.listing : undefined;
    if (fresh && (fresh.complete || fresh.byOrder.has(orderId) || fresh.covered.has(orderId))) return fresh.byOrder.get(orderId);
    if (!this.pending) {
      const wanted = new Set<string>();
      const result = clock.sleep(GATHER_MS).then(async () => {
        try {
          const found = await listForOrders(this.api, wanted, Boolean(fresh));
          // A list that cannot tell (no order_id, or it failed) is not asked again while it would be fresh.
          this.listing = merge(fresh, { ...(found ?? { byOrder: new Map(), complete: false, covered: wanted }), at: clock.now() });
          return this.listing;
        } finally {
          this.pending = undefined;
        }
      });
      this.pending = { wanted, result };
    }
    this.pending.wanted.add(orderId);
    const found = await this.pending.result;
    return found?.byOrder.get(orderId);
  }
}

/** A later listing added to a fresh one: what both found, and what both looked for. */
function merge(earlier: Listing | undefined, later: Listing): Listing {
  if (!earlier) return later;
  return {
    byOrder: new Map([...earlier.byOrder, ...later.byOrder]),
    complete: earlier.complete || later.complete,
    covered: new Set([...earlier.covered, ...later.covered]),
    at: earlier.at,
  };
}
