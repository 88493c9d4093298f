/**
 * express-rate-limit, the most used Node rate limiter, in front of an API: a fixed window per key (its default
 * memory store) counted on the `Authorization` header, in any of its four header modes, and every request it lets
 * through forwarded as it came. The sandbox behind it has no limit of its own, so the limit met is the library's.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { rateLimit } from "express-rate-limit";
import { request } from "undici";

/** express-rate-limit's header modes: `legacy` is `X-RateLimit-*` alone, the others its `standardHeaders` drafts. */
export type LimiterMode = "legacy" | "draft-6" | "draft-7" | "draft-8";

/** The front: its URL, how many requests it refused, and how to stop it. */
export interface LimiterFront {
  url: string;
  /** Requests answered `429`. */
  refused(): number;
  /** Requests let through. */
  passed(): number;
  stop(): Promise<void>;
}

/** Starts the front on loopback: `limit` requests per key in each window of `windowMs`, forwarded to `upstream`. */
export async function startLimiterFront(upstream: string, options: { mode: LimiterMode; limit: number; windowMs: number }): Promise<LimiterFront> {
  let refused = 0;
  let passed = 0;
  const app = express();
  app.use(
    rateLimit({
      windowMs: options.windowMs,
      limit: options.limit,
      standardHeaders: options.mode === "legacy" ? false : options.mode,
      legacyHeaders: options.mode === "legacy",
      keyGenerator: (req) => req.headers.authorization ?? "anonymous",
      handler: (_req, res, _next, used) => {
        refused += 1;
        res.status(used.statusCode).json({ type: "about:blank", title: "Too Many Requests", status: 429, code: "rate_limited" });
      },
    }),
  );
  app.use(async (req, res) => {
    passed += 1;
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === "string" && !["host", "connection", "content-length"].includes(name)) headers[name] = value;
    }
    const answer = await request(`${upstream}${req.originalUrl}`, { method: req.method as "GET", headers, body: chunks.length > 0 ? Buffer.concat(chunks) : undefined });
    const body = Buffer.from(await answer.body.arrayBuffer());
    for (const [name, value] of Object.entries(answer.headers)) {
      // The front's own rate-limit headers stand; the upstream's framing is the front's to write.
      if (value !== undefined && !res.hasHeader(name) && !["content-length", "connection", "keep-alive", "transfer-encoding"].includes(name)) res.setHeader(name, value);
    }
    res.status(answer.statusCode).end(body);
  });
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, "127.0.0.1", () => resolve(listening));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    refused: () => refused,
    passed: () => passed,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
