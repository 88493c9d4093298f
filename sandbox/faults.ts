/**
 * Fault injection for tests. Everything is off until a test (or the admin route) turns it on.
 */

/** A request matcher: method and/or path prefix. Both optional; an empty matcher matches every request. */
export interface FaultMatch {
  method?: string;
  /** Matches when the request path starts with this, such as `/v1/orders`. */
  pathPrefix?: string;
}

/** Fail matching requests with a status. */
export interface FailFault extends FaultMatch {
  /** How many requests to fail. */
  count: number;
  status: number;
  /** Sent as `Retry-After` (seconds) when set. */
  retryAfterSeconds?: number;
  /** Error code in the problem body. Defaults to the contract's code for the status. */
  code?: string;
}

/** The faults a sandbox can inject. */
export class Faults {
  private failures: Array<FailFault & { left: number }> = [];
  /** Resets the connection of the next N `POST /v1/orders` after the order was committed. */
  resetAfterCommit = 0;
  /** Delay before every response, in milliseconds. */
  delayMs = 0;
  /** New orders answer `404` to their first N reads (the contract's read-after-write burst). */
  notFoundReadsForNewOrders = 0;
  /** The next N orders end `failed` when provisioning finishes (an order that fails fast). */
  failNewOrders = 0;

  /** Fails the next `count` matching requests with `status`. */
  failNext(fault: FailFault): void {
    this.failures.push({ ...fault, left: fault.count });
  }

  /** Turns every fault off. */
  clear(): void {
    this.failures = [];
    this.resetAfterCommit = 0;
    this.delayMs = 0;
    this.notFoundReadsForNewOrders = 0;
    this.failNewOrders = 0;
  }

  /** Whether the order being created should fail; consumes one. */
  takeFailNewOrder(): boolean {
    if (this.failNewOrders > 0) {
      this.failNewOrders -= 1;
      return true;
    }
    return false;
  }

  /** The failure to inject for this request, if any; it is consumed. */
  takeFailure(method: string, path: string): FailFault | undefined {
    const fault = this.failures.find(
      (f) => f.left > 0 && (!f.method || f.method === method) && (!f.pathPrefix || path.startsWith(f.pathPrefix)),
    );
    if (fault) {
      fault.left -= 1;
      this.failures = this.failures.filter((f) => f.left > 0);
    }
    return fault;
  }

  /** Whether to reset the connection of this committed POST; consumes one. */
  takeResetAfterCommit(): boolean {
    if (this.resetAfterCommit > 0) {
      this.resetAfterCommit -= 1;
      return true;
    }
    return false;
  }
}
