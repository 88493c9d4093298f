/**
 * Deciding that an order is gone. Money is at stake: an order that leaves the state while it still exists is bought
 * again by a later `pulumi up`. So a `404` alone proves nothing; absence is certain only when
 *   1. the order's `not_found` holds across the contract's read-after-write window (a short burst of 404 is allowed
 *      right after a purchase), and
 *   2. the API answers another request on the same base URL normally (a wrong base URL or path answers 404 to
 *      everything).
 */
import { NotFoundError, type ProxyApiClient, ProxyApiError } from "../../client";
import type { Order } from "../../contract";

/**
 * How long a 404 must hold: `rereads` reads after the first must also answer 404, each `delayMs` after the last,
 * together spanning the read-after-write window (about 10 seconds, on the client's clock).
 */
const ABSENCE_CHECK = { rereads: 5, delayMs: 2000 } as const;

/** A 404 that could not be confirmed: the order is kept, and the message says why. */
export class OrderAbsenceUnconfirmedError extends ProxyApiError {}

/**
 * Called after `GET /v1/orders/{id}` answered 404. Resolves with the order if a re-read finds it, with `"gone"` when
 * its absence is certain, and rejects with an {@link OrderAbsenceUnconfirmedError} when it is not.
 */
export async function confirmOrderGone(
  client: Pick<ProxyApiClient, "getOrder" | "getUsage" | "clock">,
  id: string,
  first: NotFoundError,
): Promise<Order | "gone"> {
  for (let i = 0; i < ABSENCE_CHECK.rereads; i++) {
    await client.clock.sleep(ABSENCE_CHECK.delayMs);
    try {
      return (await client.getOrder(id)).order;
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
    }
  }
  await confirmApiAnswers(client, first, `order ${id} stays in the state`);
  return "gone";
}

/**
 * Resolves when `GET /v1/usage` on the same base URL answers, so that `first` (a 404) came from the API itself;
 * rejects with an {@link OrderAbsenceUnconfirmedError} that names the setting to check otherwise. `consequence` says
 * what is done instead of trusting the 404 (e.g. "order ord_1 stays in the state").
 */
export async function confirmApiAnswers(client: Pick<ProxyApiClient, "getUsage">, first: NotFoundError, consequence: string): Promise<void> {
  try {
    await client.getUsage();
  } catch (error) {
    const why = (error instanceof Error ? error.message : String(error)).replace(/\.\s*$/, "");
    throw new OrderAbsenceUnconfirmedError(
      `${first.method} ${first.path} answered 404, and GET /v1/usage on the same base URL failed too (${why}). ` +
        "So the 404 may come from a wrong proxy:baseUrl (or PROXY_API_BASE_URL) or an outage, " +
        `not from a missing order: ${consequence}. Check the base URL (without /v1), then try again.`,
      {
        status: first.status,
        code: "absence_unconfirmed",
        requestId: first.requestId,
        method: first.method,
        path: first.path,
        cause: error instanceof Error ? error : undefined,
      },
    );
  }
}
