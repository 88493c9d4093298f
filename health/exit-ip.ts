/**
 * The caller's address as an echo target reports it: a JSON object with one of the fields such services use (`ip`,
 * `origin`, `address`, ...), or a body that is only the address.
 */
import { isIP } from "node:net";

/** The fields echo services put the caller's address in, in the order tried. */
const ADDRESS_FIELDS = ["ip", "origin", "address", "query", "clientIp", "client_ip", "remoteAddress", "remote_addr"];

/** The address the target saw, or undefined when its body reports none. */
export function exitIpOf(body: string): string | undefined {
  const text = body.trim();
  if (isIP(text)) return text;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null) return undefined;
  for (const field of ADDRESS_FIELDS) {
    const value = (parsed as Record<string, unknown>)[field];
    // httpbin's `origin` lists the forwarding chain: "client, proxy".
    const first = typeof value === "string" ? value.split(",")[0]?.trim() : undefined;
    if (first && isIP(first)) return first;
  }
  return undefined;
}
