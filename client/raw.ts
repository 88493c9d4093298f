/**
 * One request as it is, for the contract check (check/probe.ts): through the client's dispatcher, so `HTTPS_PROXY`
 * and a test's interceptors apply as they do to the client, but with nothing of the client around it: no retry, no
 * wait for the rate limit, no reading of the answer but its decoding as the client decodes it (body.ts), with the
 * codings the client accepts. Its types are this package's, so undici's stay inside client/.
 */
import { ACCEPTED_ENCODINGS, readBody, UndecodableBodyError } from "./body";
import { defaultDispatcher } from "./dispatcher";
import { DEFAULT_CLIENT_OPTIONS } from "./request";

/** The most of a body read: the client's own bound. */
const MAX_BODY_BYTES = DEFAULT_CLIENT_OPTIONS.maxResponseBytes;

/** A request to send as it is. */
export interface RawRequest {
  method: "GET" | "POST";
  url: URL;
  headers: Record<string, string>;
  body?: string;
  /** The most the headers, and then the body, may each take to come. */
  timeoutMs: number;
}

/** What came back: the status, the headers (names in lower case, repeated ones joined) and the body as text. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/** Sends `request`; rejects only when no answer came (network, timeout). */
export async function sendRaw(request: RawRequest): Promise<RawAnswer> {
  const response = await defaultDispatcher().request({
    origin: request.url.origin,
    path: `${request.url.pathname}${request.url.search}`,
    method: request.method,
    headers: { "accept-encoding": ACCEPTED_ENCODINGS, ...request.headers },
    body: request.body,
    headersTimeout: request.timeoutMs,
    bodyTimeout: request.timeoutMs,
  });
  const headers = Object.fromEntries(
    Object.entries(response.headers).map(([name, value]) => [name.toLowerCase(), Array.isArray(value) ? value.join(", ") : String(value ?? "")]),
  );
  const text = await readBody(response.body, headers["content-encoding"], MAX_BODY_BYTES).then(
    (read) => read ?? `(a body over ${MAX_BODY_BYTES} bytes, not read)`,
    (error: unknown) => {
      if (error instanceof UndecodableBodyError) return `(${error.message})`;
      throw error;
    },
  );
  return { status: response.statusCode, headers, text };
}
