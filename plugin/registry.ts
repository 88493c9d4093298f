/**
 * The plugin's resources and functions, by token. For a resource: the provider core that runs it (provider/) and how
 * the engine's untyped property maps become the core's inputs and outputs; the engine sends back what the core itself
 * produced (its checked inputs, its outputs), so those values are taken as the core's types here, in one place per
 * resource. For a function: its argument checks and its call, with the outputs to mark secret.
 */
import { type ProxyApiClient, ProxyError } from "../client";
import {
  checkGetProxiesArgs,
  checkGetProxyHealthArgs,
  checkProxyHealth,
  type ConfigureArgs,
  type FleetInputs,
  type FleetOutputs,
  FleetProvider,
  GET_PROXIES,
  GET_PROXY_HEALTH,
  GET_USAGE,
  listProxies,
  type OperationOptions,
  type OrderInputs,
  type OrderOutputs,
  OrderProvider,
  type OrderProviderOptions,
  PROXY_FLEET,
  PROXY_ORDER,
  type ResourceIdentity,
  secretNames,
} from "../provider";
import type { PropertyMap } from "./properties";

/** A resource's core, in the shape both cores share, for inputs `I` and outputs `O`. */
interface Lifecycle<I, O> {
  configure(req: ConfigureArgs): Promise<void>;
  check(olds: PropertyMap, news: PropertyMap): Promise<{ inputs: object; failures: Array<{ property: string; reason: string }> }>;
  diff(id: string, olds: O, news: I): Promise<{ changes: boolean; replaces: string[]; diffs: string[]; deleteBeforeReplace: boolean }>;
  create(inputs: I, operation: OperationOptions): Promise<{ id: string; outs: object }>;
  read(id: string, props: O): Promise<{ id?: string; props?: object; inputs?: object }>;
  update(id: string, olds: O, news: I, operation: OperationOptions): Promise<{ outs: object }>;
  delete(id: string, props: O): Promise<void>;
}

/** What the service calls on a resource's core, with properties as the engine sends them. */
export interface ResourceMethods extends Lifecycle<PropertyMap, PropertyMap> {
  /** `pulumi import`: the resource by id, with the inputs a program declaring it would have. */
  import(id: string, resource: ResourceIdentity): Promise<{ id: string; props: object; inputs: object }>;
}

/** The service's methods on `core`, whose inputs and outputs the engine sends as `inputs(map)` and `outputs(map)`. */
function adapt<I, O>(
  core: Lifecycle<I, O>,
  inputs: (props: PropertyMap) => I,
  outputs: (props: PropertyMap) => O,
  importById: ResourceMethods["import"],
): ResourceMethods {
  return {
    configure: (req) => core.configure(req),
    check: (olds, news) => core.check(olds, news),
    diff: (id, olds, news) => core.diff(id, outputs(olds), inputs(news)),
    create: (props, operation) => core.create(inputs(props), operation),
    read: (id, props) => core.read(id, outputs(props)),
    import: importById,
    update: (id, olds, news, operation) => core.update(id, outputs(olds), inputs(news), operation),
    delete: (id, props) => core.delete(id, outputs(props)),
  };
}

/** Each resource type's core, made for a configuration's options. */
const RESOURCE_TYPES: Readonly<Record<string, (options: OrderProviderOptions) => ResourceMethods>> = {
  [PROXY_ORDER.token]: (options) => {
    const order = new OrderProvider(options);
    return adapt(order, (p) => p as OrderInputs, (p) => p as OrderOutputs, (id, resource) => order.importOrder(id, resource));
  },
  [PROXY_FLEET.token]: (options) => {
    const fleet = new FleetProvider(options);
    return adapt(fleet, (p) => p as FleetInputs, (p) => p as FleetOutputs, (id, resource) => fleet.importFleet(id, resource));
  },
};

/** The core of a resource type; an unknown type is refused. */
export function resourceType(type: string, options: OrderProviderOptions): ResourceMethods {
  const make = RESOURCE_TYPES[type];
  if (!make) throw new ProxyError(`The proxy provider has no resource type "${type}"; it has ${Object.keys(RESOURCE_TYPES).join(" and ")}.`, "unknown_type");
  return make(options);
}

/** What a function's invoke comes to: the failures of its arguments, or its result and the outputs that are secret. */
export type FunctionAnswer =
  | { failures: Array<{ property: string; reason: string }>; result?: undefined; secret?: undefined }
  | { failures?: undefined; result: object; secret: string[] };

/** Each function: a call of the API with the invoke's arguments. */
const FUNCTION_TYPES: Readonly<Record<string, (api: ProxyApiClient, args: PropertyMap) => Promise<FunctionAnswer>>> = {
  [GET_PROXIES.token]: async (api, args) => {
    const call = checkGetProxiesArgs(args);
    if (call.failures) return { failures: call.failures };
    const result = await listProxies(api, call.filters, call.includeCredentials);
    return { result, secret: call.includeCredentials ? secretNames(GET_PROXIES.outputs) : [] };
  },
  [GET_PROXY_HEALTH.token]: async (api, args) => {
    const call = checkGetProxyHealthArgs(args);
    if (call.failures) return { failures: call.failures };
    return { result: await checkProxyHealth(api, call.query), secret: secretNames(GET_PROXY_HEALTH.outputs) };
  },
  [GET_USAGE.token]: async (api) => ({ result: await api.getUsage(), secret: secretNames(GET_USAGE.outputs) }),
};

/** The call of a function; an unknown token is refused. */
export function functionType(token: string): (api: ProxyApiClient, args: PropertyMap) => Promise<FunctionAnswer> {
  const call = FUNCTION_TYPES[token];
  if (!call) throw new ProxyError(`The proxy provider has no function "${token}".`, "unknown_function");
  return call;
}
