/**
 * The sandbox's plan catalogue. The real API has no catalogue endpoint; these ids exist only in the sandbox
 * (docs/sandbox.md lists them for users).
 */

/** A plan the sandbox sells. */
export interface Plan {
  id: string;
  /** Proxy type of every proxy in the plan. */
  type: "datacenter" | "isp" | "residential" | "mobile";
  country: string;
  city: string;
  protocol: "http" | "socks5";
  /** Proxies provisioned by one order. */
  proxyCount: number;
  /** Price in cents, taken from the sandbox account's balance. */
  priceCents: number;
  /** Days an active order lasts before it becomes `expired`. */
  durationDays: number;
  /** When set, every order of this plan ends `failed` with this reason. */
  failsWith?: { code: string; message: string };
}

/** Every plan of the sandbox, by id. */
export const PLANS: Readonly<Record<string, Plan>> = Object.freeze(
  Object.fromEntries(
    (
      [
        { id: "dc-us-1", type: "datacenter", country: "US", city: "Ashburn", protocol: "http", proxyCount: 1, priceCents: 100, durationDays: 30 },
        { id: "dc-us-5", type: "datacenter", country: "US", city: "Ashburn", protocol: "http", proxyCount: 5, priceCents: 500, durationDays: 30 },
        { id: "dc-de-25", type: "datacenter", country: "DE", city: "Frankfurt", protocol: "http", proxyCount: 25, priceCents: 2000, durationDays: 30 },
        { id: "isp-gb-2", type: "isp", country: "GB", city: "London", protocol: "http", proxyCount: 2, priceCents: 800, durationDays: 30 },
        { id: "res-us-10", type: "residential", country: "US", city: "Chicago", protocol: "socks5", proxyCount: 10, priceCents: 3000, durationDays: 30 },
        { id: "mobile-fr-1", type: "mobile", country: "FR", city: "Paris", protocol: "socks5", proxyCount: 1, priceCents: 1500, durationDays: 30 },
        { id: "dc-us-250", type: "datacenter", country: "US", city: "Dallas", protocol: "http", proxyCount: 250, priceCents: 10000, durationDays: 30 },
        {
          id: "res-br-out-of-stock", type: "residential", country: "BR", city: "São Paulo", protocol: "http", proxyCount: 3,
          priceCents: 900, durationDays: 30,
          failsWith: { code: "out_of_stock", message: "No residential proxies are available in BR right now." },
        },
        { id: "dedicated-enterprise", type: "isp", country: "US", city: "New York", protocol: "http", proxyCount: 100, priceCents: 100_000_000, durationDays: 30 },
      ] satisfies Plan[]
    ).map((plan) => [plan.id, plan]),
  ),
);

/** Starting balance of a sandbox account, in cents: enough for many orders, not for `dedicated-enterprise`. */
export const DEFAULT_BALANCE_CENTS = 10_000_000;
