/**
 * A client wired to undici's MockAgent: real network refused, sleeps recorded instead of waited.
 */
import { MockAgent } from "undici";
import { afterEach, vi } from "vitest";
import type { Clock } from "../../client/clock";
import { ProxyApiClient } from "../../client/client";
import type { ClientOptions } from "../../client/request";
import { jitter } from "../../client/retry";

afterEach(() => {
  vi.restoreAllMocks();
});

export const BASE_URL = "https://api.proxy.test";
export const API_KEY = "sk_live_SECRET_9f8e7d6c5b4a";

/** `random` fixes the jitter (0.5 by default, 1 shows each delay's ceiling). */
export function mockApi(options: Partial<ClientOptions> & { random?: number } = {}) {
  const { random = 0.5, ...clientOptions } = options;
  const agent = new MockAgent();
  agent.disableNetConnect();
  const pool = agent.get(BASE_URL);
  const sleeps: number[] = [];
  vi.spyOn(jitter, "random").mockReturnValue(random);
  // The retries' back-offs and the budget's waits (a 429's Retry-After) pass on one clock that records them and lets
  // no real time pass.
  const clock = recordingClock(sleeps);
  const client = new ProxyApiClient({ baseUrl: BASE_URL, apiKey: API_KEY, dispatcher: agent, clock, ...clientOptions });
  return {
    agent,
    pool,
    client,
    sleeps,
    /** Fails the test if an interceptor was never used. */
    done: () => agent.assertNoPendingInterceptors(),
  };
}

/** A clock whose sleeps return at once, move its time on, and are recorded. */
export function recordingClock(sleeps: number[] = [], start = Date.now()): Clock & { sleeps: number[] } {
  let now = start;
  return {
    sleeps,
    now: () => now,
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
  };
}

/** A problem+json body as the contract defines it. */
export function problem(status: number, code: string, detail: string, extra: Record<string, unknown> = {}) {
  return {
    type: `https://errors.test/${code}`,
    title: code,
    status,
    detail,
    instance: "/v1/orders",
    code,
    request_id: "req_body",
    ...extra,
  };
}

export const PROBLEM_HEADERS = { "content-type": "application/problem+json", "x-request-id": "req_123" };

export const ORDER = {
  id: "ord_1",
  plan_id: "dc-us-5",
  status: "pending",
  status_reason: null,
  created_at: "2026-11-21T10:00:00Z",
  updated_at: "2026-11-21T10:00:00Z",
  ready_at: null,
};

export const PROXY = { ip: "198.51.100.7", port: 8080, type: "datacenter", country: "US" };
