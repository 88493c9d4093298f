/**
 * What runs inside the Pulumi provider process (`pulumi-proxy/provider`). The ProxyOrder resource's serialized
 * provider loads this module by name, so a refresh or destroy runs the installed version of this code, and nothing
 * of it (least of all the API key) is copied into the state.
 *
 * This module is a stable interface for states written by every version: it exports only what the serialized shim
 * calls.
 */
import { createOrderProvider, type OrderProvider } from "./order-provider";

/** The provider instance of this process; `configure` gives it the stack's config. */
export const orderProvider: OrderProvider = createOrderProvider();
