/**
 * Which order a purchase's answer names, when its body is no order record: `POST /v1/orders` answers `201` with the
 * order and `Location: /v1/orders/{id}`, so an id in the body, or the `Location`, still says which order was made.
 */
import { envelopedRecord, isRecord } from "./envelope";

/**
 * The order a purchase's answer names: a non-empty `id` (or `order_id`) in its body, or in its envelope (envelope.ts; a
 * whole number too, as an API with numeric ids would send it, in its decimal form), else the id its `Location` ends in
 * (`/v1/orders/{id}`, as a path or a whole URL); undefined when neither names one.
 */
export function orderNamedBy(body: unknown, location: string | undefined): string | undefined {
  const named = (value: Record<string, unknown> | undefined) => value?.id ?? value?.order_id;
  const id = named(isRecord(body) ? body : undefined) ?? named(envelopedRecord(body));
  if (typeof id === "string" && id !== "") return id;
  if (typeof id === "number" && Number.isSafeInteger(id)) return String(id);
  const segment = location && /\/orders\/([^/?#]+)\/?(?:[?#].*)?$/.exec(location.trim())?.[1];
  if (!segment) return undefined;
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
