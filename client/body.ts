/**
 * An answer's body as text: decoded by its `Content-Encoding` (gzip, deflate or br, which the client says it accepts,
 * and which a server may also send unasked), and bounded, after decoding, by the client's `maxResponseBytes`, so that
 * a small compressed body cannot expand without limit.
 */
import { pipeline, type Readable, type Transform } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";

/** What the client sends as `Accept-Encoding`: every coding {@link readBody} decodes. */
export const ACCEPTED_ENCODINGS = "gzip, deflate, br";

const DECODERS: Record<string, () => Transform> = {
  gzip: createGunzip,
  "x-gzip": createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

/** A body whose `Content-Encoding` names a coding this client does not decode, or whose coding is broken. */
export class UndecodableBodyError extends Error {
  readonly code = "undecodable_body";
}

/**
 * Reads a body as text, decoding `contentEncoding` (codings listed in the order they were applied); undefined (the
 * reading stopped) once the decoded text passes `limit` bytes. Rejects with an {@link UndecodableBodyError}.
 */
export async function readBody(body: Readable, contentEncoding: string | undefined, limit: number): Promise<string | undefined> {
  const codings = (contentEncoding ?? "")
    .split(",")
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== "" && coding !== "identity");
  let decoded: Readable = body;
  for (const coding of codings.reverse()) {
    const decoder = DECODERS[coding];
    if (!decoder) {
      discard(body);
      throw new UndecodableBodyError(`the answer's Content-Encoding "${coding}" is not one this provider decodes (${ACCEPTED_ENCODINGS})`);
    }
    // The callback form: a failure of either side ends both, and surfaces in the iteration below.
    decoded = pipeline(decoded, decoder(), () => undefined);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of decoded) {
      size += chunk.length;
      if (size > limit) {
        discard(decoded);
        discard(body);
        return undefined;
      }
      chunks.push(Buffer.from(chunk));
    }
  } catch (error) {
    // A failure of the body itself (a reset, a timeout) stays what it is, and the call is retried as for any other.
    if (!isZlibError(error)) throw error;
    throw new UndecodableBodyError(`the answer's ${codings.join(", ")} body could not be decoded (${error instanceof Error ? error.message : String(error)})`);
  }
  // UTF-8 decoded as the Encoding Standard does (and fetch's `json()`): a leading byte-order mark is dropped. Servers on
  // .NET or Java may start their JSON with one, which RFC 8259 lets a parser ignore and JSON.parse refuses.
  return UTF8.decode(Buffer.concat(chunks));
}

const UTF8 = new TextDecoder("utf-8");

/** A decoder's own failure (zlib's codes, and brotli's): the coding is broken. */
function isZlibError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^(Z_|ERR__ERROR|ERR_BROTLI)/.test(code);
}

/** Stops reading a body: undici's reports the stop as an error, which nothing here waits for. */
function discard(stream: Readable): void {
  stream.on("error", () => undefined);
  stream.destroy();
}
