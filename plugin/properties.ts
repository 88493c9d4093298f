/**
 * Property values as the engine sends and expects them over gRPC (`google.protobuf.Struct`), in one place. Secrets
 * travel as objects marked with Pulumi's signature key (`runtime/rpc.js`: `specialSigKey`, `specialSecretSig`);
 * unknown values (preview) as the string `runtime.unknownValue`, which the provider core already handles.
 */
import { specialSecretSig, specialSigKey } from "@pulumi/pulumi/runtime/rpc";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { engineValue } from "../provider";

/** A property map: a Struct's contents. */
export type PropertyMap = Record<string, unknown>;

function isSecret(value: unknown): value is { value?: unknown } {
  return typeof value === "object" && value !== null && (value as PropertyMap)[specialSigKey] === specialSecretSig;
}

/** The value with every secret marking removed (inside this process the values are used, never shown). */
export function reveal(value: unknown): unknown {
  if (isSecret(value)) return reveal(value.value);
  if (Array.isArray(value)) return value.map(reveal);
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, reveal(v)]));
  }
  return value;
}

/** The value marked secret. */
export function secret(value: unknown): PropertyMap {
  return { [specialSigKey]: specialSecretSig, value };
}

/** The Struct's properties, secrets revealed; an absent Struct is an empty map. */
export function fromStruct(struct: Struct | undefined): PropertyMap {
  return reveal(struct?.toJavaScript() ?? {}) as PropertyMap;
}

/** The names of the Struct's properties that are secret, or hold a secret: what must go back marked. */
export function secretKeys(struct: Struct | undefined): string[] {
  const holdsSecret = (value: unknown): boolean =>
    isSecret(value) ||
    (Array.isArray(value) ? value.some(holdsSecret) : typeof value === "object" && value !== null && Object.values(value).some(holdsSecret));
  return Object.entries(struct?.toJavaScript() ?? {})
    .filter(([, value]) => holdsSecret(value))
    .map(([key]) => key);
}

/** A Struct of these properties, as the engine carries them (`engineValue`: no `undefined`; `null` stays). */
export function toStruct(properties: object, secretKeys: readonly string[] = []): Struct {
  const entries = Object.entries(engineValue(properties)).map(([k, v]) => [k, secretKeys.includes(k) ? secret(v) : v]);
  return Struct.fromJavaScript(Object.fromEntries(entries) as Parameters<typeof Struct.fromJavaScript>[0]);
}
