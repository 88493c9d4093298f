/**
 * What an error answer says, in any of the shapes the contract has clients accept (docs/api-contract.md): a problem
 * document, `{ "error": { "code", "message" } }`, `{ "detail", "code" }`, plain text or an HTML page; and the shapes
 * web frameworks write for a refused field, which the contract does not name: FastAPI's `{ "detail": [{ "loc",
 * "msg" }] }` and Rails' `{ "errors": { "plan_id": ["is invalid"] } }`. Every text from the server passes through
 * `redact`.
 */
import { problemWire } from "../contract/wire";
import type { ServerProblem } from "./errors";

type FieldError = NonNullable<ServerProblem["fieldErrors"]>[number];

/** The problem an error answer's body (`body` parsed, `text` as sent) states, its texts redacted. */
export function readServerProblem(body: unknown, text: string, redact: (text: string) => string): ServerProblem {
  const fields = frameworkFieldErrors(body);
  const parsed = problemWire.safeParse(fields ? { ...(body as object), detail: undefined, errors: undefined } : body);
  if (!parsed.success) {
    const snippet = snippetOf(text);
    return { detail: snippet ? redact(snippet) : undefined };
  }
  const p = parsed.data;
  const detail = p.detail ?? p.error?.message ?? p.message ?? fields?.[0]?.detail;
  const fieldErrors = fields ?? p.errors?.map((e) => ({ pointer: e.pointer, detail: e.detail ?? "invalid" }));
  return {
    code: p.code ?? p.error?.code,
    title: p.title === undefined ? undefined : redact(p.title),
    detail: detail === undefined ? undefined : redact(detail),
    requestId: p.request_id,
    fieldErrors: fieldErrors?.map((e) => ({ ...e, detail: redact(e.detail) })),
  };
}

/** A refused field's errors as FastAPI (`detail` a list of `{ loc, msg }`) or Rails (`errors` a map) write them. */
function frameworkFieldErrors(body: unknown): FieldError[] | undefined {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return undefined;
  const { detail, errors } = body as { detail?: unknown; errors?: unknown };
  if (Array.isArray(detail) && detail.length > 0 && detail.every((d) => typeof (d as { msg?: unknown })?.msg === "string")) {
    return detail.map((d: { loc?: unknown; msg: string }) => ({
      pointer: Array.isArray(d.loc) ? `/${d.loc.filter((part) => part !== "body").join("/")}` : undefined,
      detail: d.msg,
    }));
  }
  if (errors !== null && typeof errors === "object" && !Array.isArray(errors)) {
    const entries = Object.entries(errors as Record<string, unknown>);
    if (entries.length > 0) {
      return entries.map(([field, said]) => ({ pointer: `/${field}`, detail: (Array.isArray(said) ? said : [said]).map(String).join("; ") }));
    }
  }
  return undefined;
}

/**
 * What a body that is not a problem document says, on one line: an HTML page's title (gateways and limiters in front
 * of an API answer with pages, such as nginx's "503 Service Temporarily Unavailable"), or else its text without tags.
 */
function snippetOf(text: string): string {
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(text)?.[1];
  const plain = title ?? (/^\s*</.test(text) ? text.replace(/<[^>]*>/g, " ") : text);
  return plain.replace(/\s+/g, " ").trim().slice(0, 200);
}
