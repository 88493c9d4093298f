/**
 * The error a step of a check raises: a failure kind and a message for people. Messages are written here from what
 * happened, never from what a proxy sent, so no credential and no text of the proxy's can reach a result.
 */
import type { HealthFailure } from "./types";

/** A check's step failed for a reason the result names. */
export class ProbeFailure extends Error {
  constructor(
    readonly kind: HealthFailure,
    message: string,
    /**
     * The proxy closed the connection at the tunnel's first request without sending a byte: what a server of the other
     * protocol does, so the check asks it in that protocol before it says `closed`.
     */
    readonly unanswered = false,
  ) {
    super(message);
    this.name = "ProbeFailure";
  }
}

/**
 * The proxy speaks the other protocol than the check spoke (`protocol_error`): the record names the wrong one, or, in a
 * record that names none (the seed's four fields), HTTP was tried first and the proxy is SOCKS5.
 */
export class OtherProtocol extends ProbeFailure {
  constructor(
    /** What the proxy speaks. */
    readonly speaks: "http" | "socks5",
    message: string,
  ) {
    super("protocol_error", message);
  }
}

/**
 * The proxy refused CONNECT to the target by its rules (`403`, `target_unreachable`). Many allow CONNECT to port 443
 * alone, as squid's and tinyproxy's shipped configurations do, and still carry requests for `http` URLs: the check then
 * asks for an `http` target that way (health/probe.ts).
 */
export class TunnelForbidden extends ProbeFailure {
  constructor(message: string) {
    super("target_unreachable", message);
  }
}

/** The failure of a socket error: refused, closed, or the network's own reason by its code. */
export function socketFailure(error: unknown, during: string): ProbeFailure {
  if (error instanceof ProbeFailure) return error;
  const code = (error as { code?: unknown }).code;
  if (code === "ECONNREFUSED") return new ProbeFailure("refused", `the proxy refused the connection (${during})`);
  if (code === "ECONNRESET" || code === "EPIPE") return new ProbeFailure("closed", `the proxy closed the connection (${during})`);
  if (code === "ETIMEDOUT") return new ProbeFailure("timeout", `the connection timed out (${during})`);
  const named = typeof code === "string" ? code : "a network error";
  return new ProbeFailure("refused", `the proxy could not be reached: ${named} (${during})`);
}
