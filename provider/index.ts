/**
 * What runs inside the Pulumi provider process (`pulumi-proxy/provider`). The ProxyOrder resource's serialized
 * provider loads this module by name, so a refresh or destroy runs the installed version of this code, and nothing
 * of it (least of all the API key) is copied into the state.
 */
import { createOrderProvider } from "./order-provider";

/** The provider instance of this process; `configure` gives it the stack's config. */
export const orderProvider = createOrderProvider();

export { createOrderProvider, checkInputs, INPUT_DEFAULTS, UNKNOWN } from "./order-provider";
export type { OrderProvider, OrderProviderOptions, ProviderLog, CheckFailure } from "./order-provider";
export type { OrderInputs, OrderOutputs, ProxyInfo, ProxyCredential } from "./order-state";
