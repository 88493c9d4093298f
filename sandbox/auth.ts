/**
 * Who a request is: the sandbox's full key, its read-only key, or neither (compared in constant time).
 */
import { timingSafeEqual } from "node:crypto";

/** How a request authenticated. */
export type Auth = "valid" | "read-only" | "missing" | "invalid";

/** The request's `Authorization` header, judged against the sandbox's two keys. */
export function authenticate(header: string | undefined, apiKey: string, readOnlyApiKey: string): Auth {
  if (!header) return "missing";
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  if (!match) return "invalid";
  const given = match[1] ?? "";
  if (sameSecret(given, apiKey)) return "valid";
  if (sameSecret(given, readOnlyApiKey)) return "read-only";
  return "invalid";
}

function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
