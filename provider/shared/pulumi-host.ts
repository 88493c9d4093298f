/**
 * What the Pulumi engine requires of a dynamic provider, in one place. Each fact cites the host code it matches in
 * @pulumi/pulumi (`cmd/dynamic-provider/index.js` and `runtime/rpc.js` of the pinned version).
 */
import { unknownValue } from "@pulumi/pulumi/runtime/rpc";
import { ProxyError } from "../../client";

/**
 * How the engine marks a value it does not know yet, during preview (`runtime/rpc.js`, `unknownValue`). It arrives
 * in place of any input, whatever the input's type (pulumi/pulumi#6310).
 */
export const UNKNOWN: string = unknownValue;

/**
 * The serialized provider travels among a resource's inputs and outputs under this key (`providerKey` in
 * `cmd/dynamic-provider/index.js`). Methods receive it; it must be copied into a partial create's properties.
 */
export const PROVIDER_KEY = "__provider";

/** Inputs as the engine passes them: the resource's own, plus the serialized provider. */
export type WithProvider<T> = T & { [PROVIDER_KEY]?: unknown };

/**
 * An error that tells the engine the resource exists although the operation failed: a partial create (or update).
 * `grpcResponseFromError` in `cmd/dynamic-provider/index.js` reads exactly `id`, `properties` and `reasons` from the
 * thrown object and sends them as `ErrorResourceInitFailed`; the engine then records the resource with those
 * properties, and the next `pulumi up` calls `update`. The CLI prints the `reasons`, not the message, so both carry
 * the whole text.
 */
export class PartialOrderError extends ProxyError {
  readonly reasons: string[];
  /** The properties the engine records, as its Struct carries them ({@link engineValue}). */
  readonly properties: Record<string, unknown>;

  constructor(
    message: string,
    readonly id: string,
    properties: Record<string, unknown>,
  ) {
    super(message, "partial_create");
    this.reasons = [message];
    this.properties = engineValue(properties);
  }
}

/**
 * A value as the engine's `google.protobuf.Struct` can carry it, by JSON's rules, the ones Pulumi's serialization of a
 * program's values follows (`serializeProperty` in `runtime/rpc.js`): a key whose value is `undefined` is left out, an
 * `undefined` item of a list becomes `null`. The dynamic provider host hands a method's result to
 * `Struct.fromJavaScript` as it is (`cmd/dynamic-provider/index.js`), which throws "Unexpected struct type." at an
 * `undefined` anywhere inside it, after the purchase, losing the order from the state: every result of a provider
 * method, and every partial error's properties, goes through here. A value JSON cannot hold (a function, a symbol, a
 * bigint) is a defect of this package, named by its path.
 */
export function engineValue<T>(value: T): T {
  return carried(value, "") as T;
}

function carried(value: unknown, path: string): unknown {
  if (Array.isArray(value)) return value.map((item, i) => (item === undefined ? null : carried(item, `${path}[${i}]`)));
  if (value !== null && typeof value === "object") {
    const kept: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      if (item !== undefined) kept[key] = carried(item, path ? `${path}.${key}` : key);
    }
    return kept;
  }
  if (typeof value === "function" || typeof value === "symbol" || typeof value === "bigint") {
    throw new ProxyError(`Internal error: the output ${path || "(value)"} is a ${typeof value}, which Pulumi cannot store. Please report it.`, "internal");
  }
  return value;
}

/** The properties of a partial result: the outputs, with the serialized provider copied from the inputs. */
export function partialProperties(outputs: object, inputs: WithProvider<object>): Record<string, unknown> {
  return { ...outputs, [PROVIDER_KEY]: inputs[PROVIDER_KEY] };
}

/**
 * The provider the state stores with every dynamic ProxyOrder, under `__provider`: the source of a CommonJS module whose
 * `handler()` returns the provider object, which is what Pulumi's dynamic provider host loads
 * (`requireFromString(props.__provider).handler()` in `cmd/dynamic-provider/index.js`).
 *
 * `pulumi.dynamic.Resource` would write it with Pulumi's closure serialization: about 2 kB of wrappers for seven
 * forwarding functions, stored twice per resource (inputs and outputs). The engine rewrites the whole state after
 * every step, so each byte per resource is paid N times per operation: this one line is the same module, written by
 * hand. It loads `pulumi-proxy/provider` by name inside the provider process, from the program's directory as
 * before, so the state holds no code of this package and no captured values (least of all the API key), and a refresh
 * or destroy runs the installed version. That module's `orderProvider` export is therefore a stable interface: states
 * written by every version call it.
 */
export const SERIALIZED_PROVIDER = 'exports.handler = () => require("pulumi-proxy/provider").orderProvider;\n';

/**
 * The type token `pulumi.dynamic.Resource` gives a resource of module `proxy` and type `ProxyOrder`: the engine sends
 * `pulumi-nodejs` types to the dynamic provider host. States store it, so it must never change (a new
 * token would replace, that is buy again, every order).
 */
export const ORDER_TYPE = "pulumi-nodejs:dynamic/proxy:ProxyOrder";

/** The provider each ProxyFleet stores: the same module, its `fleetProvider` export (a stable interface too). */
export const SERIALIZED_FLEET_PROVIDER = 'exports.handler = () => require("pulumi-proxy/provider").fleetProvider;\n';

/** The type token of a dynamic ProxyFleet. States store it, so it must never change. */
export const FLEET_TYPE = "pulumi-nodejs:dynamic/proxy:ProxyFleet";

/**
 * The engine's address when this process is Pulumi's Node dynamic provider host: the host is started as
 * `node .../@pulumi/pulumi/cmd/dynamic-provider/index.js <engine>`, and uses the address for nothing itself
 * (cmd/dynamic-provider/index.js of @pulumi/pulumi). Undefined in any other process (a program, a test, the plugin).
 */
export function dynamicHostEngineAddress(main: { filename: string } | undefined = require.main, argv: readonly string[] = process.argv): string | undefined {
  const isHost = main !== undefined && /[\\/]@pulumi[\\/]pulumi[\\/]cmd[\\/]dynamic-provider[\\/]index\.js$/.test(main.filename);
  return isHost && argv[2] ? argv[2] : undefined;
}
