/**
 * Parses an HTTP `Retry-After` value: delta seconds (`"120"`) or an HTTP date.
 * Returns the delay in milliseconds (never negative), or undefined when the value is absent or unreadable.
 */
export function parseRetryAfter(value: string | undefined | null, now: number = Date.now()): number | undefined {
  if (value === undefined || value === null) {
    return undefined;
  }
  const text = value.trim();
  if (/^\d+$/.test(text)) {
    return Number(text) * 1000;
  }
  // Date.parse also accepts loose formats such as "2"; only a value with letters can be an HTTP date.
  if (!/[a-z]/i.test(text)) {
    return undefined;
  }
  const at = Date.parse(text);
  if (Number.isNaN(at)) {
    return undefined;
  }
  return Math.max(0, at - now);
}
