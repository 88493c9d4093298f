// express-rate-limit, the most used Node rate limiter, in front of an API: a fixed window per key (its default memory
// store: each window begins with the first request after the last one ended) counted on the `Authorization` header,
// in any of its four header modes, and every request it lets through forwarded as it came. The tests and
// `npm run bench` put it in front of a sandbox with no limit of its own, so the limit met is the library's.
import express from "express";
import { rateLimit } from "express-rate-limit";
import { request } from "undici";

/** express-rate-limit's header modes: `legacy` is `X-RateLimit-*` alone, the others its `standardHeaders` drafts. */
export const LIMITER_MODES = ["legacy", "draft-6", "draft-7", "draft-8"];

/** Starts the front on loopback: `limit` requests per key in each window of `windowMs`, forwarded to `upstream`. */
export async function startLimiterFront(upstream, { mode, limit, windowMs }) {
  let refused = 0;
  let passed = 0;
  const app = express();
  app.use(
    rateLimit({
      windowMs,
      limit,
      standardHeaders: mode === "legacy" ? false : mode,
      legacyHeaders: mode === "legacy",
      keyGenerator: (req) => req.headers.authorization ?? "anonymous",
      handler: (_req, res, _next, used) => {
        refused += 1;
        res.status(used.statusCode).json({ type: "about:blank", title: "Too Many Requests", status: 429, code: "rate_limited" });
      },
    }),
  );
  app.use(async (req, res) => {
    passed += 1;
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const headers = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === "string" && !["host", "connection", "content-length"].includes(name)) headers[name] = value;
    }
    const answer = await request(`${upstream}${req.originalUrl}`, { method: req.method, headers, body: chunks.length > 0 ? Buffer.concat(chunks) : undefined });
    const body = Buffer.from(await answer.body.arrayBuffer());
    for (const [name, value] of Object.entries(answer.headers)) {
      // The front's own rate-limit headers stand; the upstream's framing is the front's to write.
      if (value !== undefined && !res.hasHeader(name) && !["content-length", "connection", "keep-alive", "transfer-encoding"].includes(name)) res.setHeader(name, value);
    }
    res.status(answer.statusCode).end(body);
  });
  const server = await new Promise((resolve) => {
    const listening = app.listen(0, "127.0.0.1", () => resolve(listening));
  });
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    refused: () => refused,
    passed: () => passed,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
