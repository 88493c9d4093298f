/**
 * The provider the state stores with every ProxyOrder, under `__provider`: the source of a CommonJS module whose
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
