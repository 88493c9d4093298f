/**
 * Raw HTTP for the contract check: one request, and exactly what came back (status, headers, text, JSON when it is
 * JSON). Unlike the client, nothing here retries, waits for the rate limit or reads tolerantly: the check must see the
 * server as it is. Requests go through the client's dispatcher (client/raw.ts), so `HTTPS_PROXY` and interceptors
 * apply alike.
 */
import { sendRaw } from "../client";

/** What one request brought back. Header names are lower case. */
export interface Seen {
  method: string;
  path: string;
  status: number;
  headers: Record<string, string>;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
}

/** One request to make. */
export interface Probe {
  method: "GET" | "POST";
  /** Path below `/v1`, with its query, such as `/proxies?limit=1`. */
  path: string;
  /** The `Authorization` header to send; none when undefined. */
  authorization?: string;
  headers?: Record<string, string>;
  body?: string;
}

/** How long one request may take, headers and body. */
const PROBE_TIMEOUT_MS = 30_000;

/** Sends one request to `baseUrl` + `/v1` + `probe.path`. Rejects only when no answer came (network, timeout). */
export async function send(baseUrl: string, probe: Probe): Promise<Seen> {
  const url = new URL(`${baseUrl.replace(/\/+$/, "")}/v1${probe.path}`);
  const headers: Record<string, string> = { accept: "application/json", ...probe.headers };
  if (probe.authorization !== undefined) headers.authorization = probe.authorization;
  if (probe.body !== undefined) headers["content-type"] = "application/json";
  const { status, headers: seenHeaders, text } = await sendRaw({ method: probe.method, url, headers, body: probe.body, timeoutMs: PROBE_TIMEOUT_MS });
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { method: probe.method, path: probe.path, status, headers: seenHeaders, text, json };
}

/** A short account of an answer for the report: status, content type and the start of the body. */
export function describe(seen: Seen): string {
  const body = seen.text.replace(/\s+/g, " ").trim();
  const type = seen.headers["content-type"]?.split(";")[0];
  return `${seen.method} /v1${seen.path} answered ${seen.status}${type ? ` (${type})` : ""}${body ? `: ${body.length > 160 ? `${body.slice(0, 160)}...` : body}` : ""}`;
}
