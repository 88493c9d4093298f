/**
 * The proxies of an active order whose record carries none. The contract has an active order name its `proxies`; an
 * API that keeps proxies a resource of their own leaves the field out, and only its list (`GET /v1/proxies`) shows
 * them. Such an order's proxies are read from the list, asked for by `order_id` (listing.ts's batches of ids, shared by
 * the orders that become active within a moment of each other, so a fleet costs a request per hundred orders, not
 * one per order): each proxy the list attributes to the order by its `order_id` is the order's.
 *
 * A list that shows none for the order is asked once more a moment later (the contract allows the list to lag behind
 * `active`). After that, or when the list fails or its proxies carry no `order_id`, the order stays as it was read,
 * without proxies, with a line that says a `pulumi refresh` reads them then: nothing here fails a purchase.
 */
import { type ProxyApiClient } from "../../client";
import { isTargetState, type Order, type ProxyRecord } from "../../contract";
import { listByOrderIds } from "./listing";
import type { ProviderLog } from "./rate-limit-report";

/** How long lookups wait for others to join one listing (as a refresh's do). */
const GATHER_MS = 1_000;

/** How long after a listing that showed none of an order's proxies it is asked for once more. */
const LAG_MS = 1_000;

/** The listings of one account (account.ts) that find active orders' proxies, shared by the lookups in flight. */
export class ActiveOrderProxies {
  private pending: { wanted: Set<string>; result: Promise<ReadonlyMap<string, ProxyRecord[]> | undefined> } | undefined;

  constructor(private readonly api: Pick<ProxyApiClient, "listProxyPages" | "clock">) {}

  /**
   * `order` with its proxies from the list, when it is active and its record has no `proxies`; else `order` as it
   * is. `log` is told when the list could not supply them.
   */
  async complete(order: Order, log: Pick<ProviderLog, "warn">): Promise<Order> {
    if (order.proxies !== undefined || !isTargetState(order.status)) return order;
    const listed = (await this.lookup(order.id)) ?? (await this.api.clock.sleep(LAG_MS).then(() => this.lookup(order.id)));
    if (listed) return { ...order, proxies: listed };
    log.warn(
      `proxy: order ${order.id} is active, but its record names no proxies and the list (GET /v1/proxies?order_id=${order.id}) ` +
        "shows none with its order_id; it is recorded without proxies, and a `pulumi refresh` reads them once the list shows them",
    );
    return order;
  }

  /** The proxies the list attributes to `orderId`, or undefined when it shows none (or cannot tell). */
  private async lookup(orderId: string): Promise<ProxyRecord[] | undefined> {
    if (!this.pending) {
      const wanted = new Set<string>();
      const result = this.api.clock.sleep(GATHER_MS).then(async () => {
        this.pending = undefined;
        return (await listByOrderIds(this.api, wanted))?.byOrder;
      });
      this.pending = { wanted, result };
    }
    this.pending.wanted.add(orderId);
    const listed = (await this.pending.result)?.get(orderId);
    return listed && listed.length > 0 ? listed : undefined;
  }
}
