/**
 * What runs inside the Pulumi provider process (`pulumi-proxy/provider`). The provider each ProxyOrder stores in the
 * state loads this module by name, so a refresh or destroy runs the installed version of this code, and nothing
 * of it (least of all the API key) is copied into the state.
 *
 * This module is a stable interface for states written by every version (the one-line provider of
 * `SERIALIZED_PROVIDER` in `pulumi-host.ts`, and the serialized shim of earlier versions): it exports only what they call.
 */
import { EngineLog, logCallsTo, tracedOperations } from "../tracing";
import { createFleetProvider, type FleetProvider } from "./fleet/fleet-provider";
import { createOrderProvider, type OrderProvider } from "./order/order-provider";
import { dynamicHostEngineAddress } from "./shared/pulumi-host";

/** The dynamic provider's name in traces. */
const SERVICE_NAME = "pulumi-proxy (dynamic provider)";

// The API exchange goes to the engine's debug log (`pulumi up --debug`). The dynamic host gives the provider no way to
// the engine (pulumi.log.debug drops its messages there), so this opens one of its own to the address the host got.
const engineAddress = dynamicHostEngineAddress();
if (engineAddress) {
  const engineLog = new EngineLog(engineAddress);
  logCallsTo((line) => engineLog.debug(line));
}

/** The ProxyOrder provider instance of this process; `configure` gives it the stack's config. */
export const orderProvider: OrderProvider = tracedOperations(createOrderProvider({ settingsToldByProgram: true }), SERVICE_NAME, "proxy:ProxyOrder");

/** The ProxyFleet provider instance of this process. */
export const fleetProvider: FleetProvider = tracedOperations(createFleetProvider({ settingsToldByProgram: true }), SERVICE_NAME, "proxy:ProxyFleet");
