/**
 * Small HTTP helpers of the sandbox: JSON and problem+json answers, and writing them.
 */
import type { ServerResponse } from "node:http";
import { defaultErrorCode } from "../contract";
import type { Answer } from "./answer-check";

const TITLE_BY_STATUS: Record<number, string> = {
  400: "Invalid request",
  401: "Unauthenticated",
  402: "Insufficient balance",
  403: "Forbidden",
  404: "Not found",
  405: "Method not allowed",
  409: "Conflict",
  422: "Unprocessable request",
  429: "Too many requests",
  500: "Internal error",
  502: "Bad gateway",
  503: "Service unavailable",
  504: "Gateway timeout",
};

/** An error a handler raises to answer with a problem document. */
export class Problem extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly options: {
      code?: string;
      errors?: Array<{ pointer: string; detail: string }>;
      headers?: Record<string, string>;
    } = {},
  ) {
    super(detail);
  }

  get code(): string {
    // 405 is the sandbox's own answer to a method a route lacks; the contract names no such case.
    return this.options.code ?? (this.status === 405 ? "method_not_allowed" : defaultErrorCode(this.status));
  }
}

/** A JSON answer. */
export function jsonAnswer(status: number, body: unknown, headers: Record<string, string> = {}): Answer {
  return { status, body, headers: { "content-type": "application/json; charset=utf-8", ...headers } };
}

/** An RFC 9457 problem document with the contract's extra fields. */
export function problemAnswer(problem: Problem, requestId: string, instance: string): Answer {
  return {
    status: problem.status,
    body: {
      type: `https://docs.invalid/problems/${problem.code}`,
      title: TITLE_BY_STATUS[problem.status] ?? "Error",
      status: problem.status,
      detail: problem.detail,
      instance,
      code: problem.code,
      request_id: requestId,
      ...(problem.options.errors ? { errors: problem.options.errors } : {}),
    },
    headers: { "content-type": "application/problem+json; charset=utf-8", ...problem.options.headers },
  };
}

/** Writes an answer. */
export function send(res: ServerResponse, answer: Answer): void {
  const text = JSON.stringify(answer.body);
  res.writeHead(answer.status, { ...answer.headers, "content-length": Buffer.byteLength(text) });
  res.end(text);
}

/** A body as JSON when it is JSON, else as text (for the request records). */
export function parseMaybe(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
