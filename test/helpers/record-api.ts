/**
 * An API that keeps the contract at its minimum and answers with the records a test gives it: each purchase answers
 * the order record the test sells for its plan, and every read of that order the record it becomes; the list is the seed's shape
 * (`data` alone, one page), with the proxies of the active orders; usage is whatever the test set. No rate-limit hints,
 * no `X-Request-Id`, nothing optional. The generative tests feed the provider every record the contract allows
 * through it, over real HTTP on loopback.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A record as it goes on the wire. */
export type WireRecord = Record<string, unknown>;

/** What one purchase answers: the POST's order, then the order every read gets (both without `id` and `plan_id`). */
export interface QueuedOrder {
  created: WireRecord;
  later: WireRecord;
}

/** A running record API. */
export interface RecordApi {
  readonly url: string;
  readonly apiKey: string;
  /**
   * What the purchases of `planId` answer, one entry per purchase in the order they arrive. A purchase of a plan with
   * nothing left to answer is refused (`422 plan_not_found`), so a test that miscounts fails at once.
   */
  sell(planId: string, ...orders: QueuedOrder[]): void;
  /** The record every read of order `id` gets. */
  recordOf(id: string): WireRecord | undefined;
  /** The body `GET /v1/usage` answers. */
  usage: WireRecord;
  /** The proxies `GET /v1/proxies` answers; unset, those of the active orders. */
  list: WireRecord[] | undefined;
  /** Purchases made, replays not counted. */
  readonly purchases: number;
  stop(): Promise<void>;
}

const problem = (status: number, code: string) => JSON.stringify({ type: "about:blank", title: code, status, detail: code, code });

/** Starts a record API on a free loopback port. */
export async function startRecordApi(): Promise<RecordApi> {
  const apiKey = "sk_records_0123456789";
  const waiting = new Map<string, QueuedOrder[]>();
  const orders = new Map<string, { planId: string; later: WireRecord }>();
  const byKey = new Map<string, string>();
  let purchases = 0;
  const api = {
    url: "",
    apiKey,
    usage: {
      period: { start: "2026-12-01T00:00:00Z", end: "2027-01-01T00:00:00Z" },
      as_of: "2026-12-05T00:00:00Z",
      bandwidth: { used_bytes: 0, limit_bytes: null },
      requests: { used: 0, limit: null },
    } as WireRecord,
    list: undefined as WireRecord[] | undefined,
    get purchases() {
      return purchases;
    },
    sell: (planId: string, ...more: QueuedOrder[]) => void waiting.set(planId, [...(waiting.get(planId) ?? []), ...more]),
    recordOf: (id: string) => orders.get(id)?.later,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        const type = status >= 400 ? "application/problem+json" : "application/json";
        res.writeHead(status, { "content-type": type, ...headers });
        res.end(typeof body === "string" ? body : JSON.stringify(body));
      };
      if (req.headers.authorization !== `Bearer ${apiKey}`) return answer(401, problem(401, "unauthenticated"));
      const path = new URL(req.url ?? "/", "http://records").pathname;
      const record = (id: string) => {
        const order = orders.get(id);
        return order && { ...order.later, id, plan_id: order.planId };
      };
      if (req.method === "POST" && path === "/v1/orders") {
        const planId = (JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as { plan_id?: string }).plan_id ?? "";
        const key = req.headers["idempotency-key"];
        const earlier = typeof key === "string" ? byKey.get(key) : undefined;
        if (earlier) return answer(200, record(earlier), { "idempotent-replayed": "true" });
        const next = waiting.get(planId)?.shift();
        if (!next) return answer(422, problem(422, "plan_not_found"));
        purchases += 1;
        const id = `ord_rec_${purchases}`;
        orders.set(id, { planId, later: next.later });
        if (typeof key === "string") byKey.set(key, id);
        return answer(201, { ...next.created, id, plan_id: planId }, { location: `/v1/orders/${id}` });
      }
      const read = /^\/v1\/orders\/([^/]+)$/.exec(path);
      if (req.method === "GET" && read) {
        const found = record(decodeURIComponent(read[1] ?? ""));
        return found ? answer(200, found) : answer(404, problem(404, "not_found"));
      }
      if (req.method === "GET" && path === "/v1/proxies") {
        const data = api.list ?? [...orders.values()].filter((o) => o.later.status === "active").flatMap((o) => (o.later.proxies as unknown[] | null) ?? []);
        return answer(200, { data });
      }
      if (req.method === "GET" && path === "/v1/usage") return answer(200, api.usage);
      return answer(404, problem(404, "not_found"));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  api.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return api;
}
