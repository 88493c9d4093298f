/**
 * The sandbox holds itself to the contract: every answer under `/v1` is checked against the wire schemas and
 * statuses the OpenAPI document is written from (contract/openapi.ts) before it is sent. An answer that breaks the
 * contract is a bug of the sandbox; it is replaced by a `500` naming what was wrong, so no test can pass on it.
 */
import { OPERATIONS, operationOf, SUCCESS_BODIES } from "../contract/openapi";
import { problemDocumentWire, readWire } from "../contract/wire";

/** One answer about to be sent. Header names are lower case. */
export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** What in the answer breaks the contract (empty when nothing does). */
export function contractProblems(method: string, path: string, answer: Answer): string[] {
  const problems: string[] = [];
  const { status, headers } = answer;
  const operation = operationOf(method, path);
  if (!headers["x-request-id"]) problems.push("no X-Request-Id header");
  const success = status >= 200 && status < 300;
  if (operation && !(OPERATIONS[operation] as { success: readonly number[]; errors: readonly number[] }).success.concat(OPERATIONS[operation].errors).includes(status)) {
    problems.push(`status ${status} is not documented for ${operation}`);
  }
  const contentType = headers["content-type"] ?? "";
  if (success) {
    if (!contentType.startsWith("application/json")) problems.push(`content type ${contentType || "(none)"} instead of application/json`);
    // The forms a client forgives (contract/wire.ts) are still the sandbox's bug.
    const forgiven: string[] = [];
    const body = operation ? readWire(SUCCESS_BODIES[operation], answer.body, forgiven) : undefined;
    if (body && !body.ok) problems.push(`body: ${body.problem}`);
    if (forgiven.length > 0) problems.push(`body in forms the contract does not name: ${forgiven.join(", ")}`);
  } else {
    if (!contentType.startsWith("application/problem+json")) problems.push(`content type ${contentType || "(none)"} instead of application/problem+json`);
    const body = readWire(problemDocumentWire, answer.body);
    if (!body.ok) problems.push(`problem document: ${body.problem}`);
  }
  if (status === 429 && !headers["retry-after"]) problems.push("a 429 without Retry-After");
  if (operation === "POST /v1/orders" && status === 201 && !headers.location) problems.push("a 201 without Location");
  if (operation === "POST /v1/orders" && status === 200 && headers["idempotent-replayed"] !== "true") {
    problems.push("a 200 replay without Idempotent-Replayed: true");
  }
  return problems;
}
