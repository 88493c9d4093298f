/**
 * The provider: what other folders (the dynamic SDK, the plugin, the contract check) may use of it. Both front ends
 * run the same cores: the resources' providers, the functions, the settings, and the schema they are described by.
 * The dynamic provider's host loads host.ts instead (`pulumi-proxy/provider`), the one entry the state names.
 */

/** Each resource's provider methods, as both front ends call them, and the options they take. */
export { createOrderProvider, OrderProvider } from "./order/order-provider";
export type { ConfigureArgs, OperationOptions, OrderProviderOptions } from "./order/order-provider";
export { createFleetProvider, FleetProvider } from "./fleet/fleet-provider";
export type { ProviderOptions, ProviderSeams } from "./core/provider-core";
export type { ProviderLog } from "./api/rate-limit-report";
/** The functions' checks and calls, shared by the dynamic SDK's functions and the plugin's invokes. */
export { checkGetProxiesArgs, checkGetProxyHealthArgs, checkProxyHealth, listProxies } from "./functions";
export type { ProxyListFilters } from "./functions";
/** The `proxy:*` settings: their keys and variables, how they are read, and what is wrong with them. */
export { CONFIG_KEYS, ConfigurationError, SANDBOX_COMMANDS, SETTING_NAMES, misspeltSettings, pluginSettings, resolveSettings, settingsProblem, toldByProgram } from "./core/config";
export type { ConfigLookup, ProviderSettings } from "./core/config";
/** The accounts of the process: one client and request budget per base URL and API key. */
export { processAccounts } from "./api/account";
/** The waiter of an order, what a plan's orders took (for an API without estimates), and the waiter's errors. */
export { OrderFailedError, OrderWaitCancelledError, OrderWaitTimeoutError, UnexpectedOrderStateError, waitForOrder } from "./api/wait";
export { ProvisioningTimes } from "./api/provisioning";
/** The error of an order whose absence could not be proven. */
export { OrderAbsenceUnconfirmedError } from "./api/absence";
/** The resources, functions and object types, each described once: inputs, outputs, defaults and docs. */
export { FUNCTIONS, GET_PROXIES, GET_PROXY_HEALTH, GET_USAGE, OBJECT_TYPES, PROVIDER_SETTINGS, PROXY_FLEET, PROXY_ORDER, RESOURCES } from "./schema/definitions";
export type { ObjectTypes, Shape } from "./schema/definitions";
export { secretNames } from "./schema/fields";
export type { FieldSpec, Fields, FunctionSpec, ResourceSpec, Same } from "./schema/fields";
export type { HealthCheckInput, HealthOutput, ProxyHealth } from "./schema/health-input";
/** The resources' state: inputs and outputs as the engine stores them. */
export type { OrderInputs, OrderOutputs, ProxyCredential, ProxyInfo } from "./state/order-state";
export type { FleetCredential, FleetInputs, FleetMember, FleetOutputs, FleetProxy } from "./state/fleet-state";
/** The idempotency key a resource's purchase derives from its identity. */
export { purchaseKey } from "./state/idempotency";
export type { ResourceIdentity } from "./state/idempotency";
/** What Pulumi's engine and the dynamic host need: type tokens, the stored provider, values they can serialize. */
export { FLEET_TYPE, ORDER_TYPE, PROVIDER_KEY, PartialOrderError, SERIALIZED_FLEET_PROVIDER, SERIALIZED_PROVIDER, UNKNOWN, engineValue } from "./shared/pulumi-host";
/** Durations as inputs spell them (`20m`, `7d`). */
export { parseDuration } from "./shared/duration";
