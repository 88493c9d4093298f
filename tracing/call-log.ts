/**
 * The API exchange as lines for Pulumi's debug log (`pulumi up --debug`): each request with its method and path, how
 * long the rate limit held it, each answer's status and time, and each retry. The lines carry no header and no body,
 * so neither the API key nor a proxy's password can reach them.
 */
import { performance } from "node:perf_hooks";
import type { CallOutcome, CallTrace, CallTracer } from "../client";

/** How an answer or a failure reads: `200`, `429 rate_limited`, `ECONNRESET`. */
function outcomeText(outcome: CallOutcome): string {
  const said = [outcome.status, outcome.code].filter((part) => part !== undefined).join(" ");
  return said || "no answer";
}

function millis(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)}ms` : `${(ms / 1000).toFixed(1)}s`;
}

/** What a `429` does to the key's other calls (client/pace.ts, rule 2). */
function pauseText(outcome: CallOutcome): string {
  if (outcome.status !== 429) return "";
  const until = outcome.retryAfterMs === undefined ? " (no Retry-After)" : ` for its Retry-After, ${millis(outcome.retryAfterMs)}`;
  return `; the rate limit pauses the key${until}`;
}

/** A tracer that writes one line per rate-limit wait, answer and retry of every call to `write`. */
export function callLog(write: (line: string) => void): CallTracer {
  return {
    call(method, path): CallTrace {
      const call = `proxy: ${method} ${path}`;
      return {
        held: (heldMs) => write(`${call} held ${millis(heldMs)} by the rate limit`),
        attempt(attempt) {
          const started = performance.now();
          return {
            end(outcome) {
              const requestId = outcome.requestId ? `, request id ${outcome.requestId}` : "";
              write(`${call} -> ${outcomeText(outcome)} in ${millis(performance.now() - started)} (attempt ${attempt}${requestId})${pauseText(outcome)}`);
            },
          };
        },
        backoff: (delayMs, outcome) => write(`${call} retries in ${millis(delayMs)} after ${outcomeText(outcome)}`),
        end() {},
      };
    },
  };
}
