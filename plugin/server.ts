/**
 * The provider plugin `proxy`: Pulumi's `ResourceProvider` gRPC service, implemented on the generated stubs that ship
 * inside @pulumi/pulumi and on the same provider core as the dynamic provider (provider/order-provider.ts).
 *
 * Why not @pulumi/pulumi's own Node provider server (`provider.main`): up to 3.248 it answers CheckConfig and
 * DiffConfig with "not implemented", drops the variables and arguments of Configure, passes neither `timeout` to
 * Create nor `inputs` from Read, and leaves secret markers in the values it hands over. This service owns those
 * translations instead; everything an order does stays in the core.
 */
import * as grpc from "@grpc/grpc-js";
import { PluginInfo } from "@pulumi/pulumi/proto/plugin_pb";
import { ResourceProviderService } from "@pulumi/pulumi/proto/provider_grpc_pb";
import * as rpc from "@pulumi/pulumi/proto/provider_pb";
import { Status } from "@pulumi/pulumi/proto/status_pb";
import { Any } from "google-protobuf/google/protobuf/any_pb";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { ProxyError } from "../client/errors";
import { VERSION } from "../client/version";
import { CONFIG_KEYS, ConfigurationError, resolveSettings } from "../provider/config";
import { listProxies, parseExpiresBefore } from "../provider/functions";
import { createFleetProvider } from "../provider/fleet-provider";
import type { FleetInputs, FleetOutputs } from "../provider/fleet-state";
import {
  createOrderProvider,
  type OperationOptions,
  type OrderProvider,
  type OrderProviderOptions,
  type ResourceIdentity,
} from "../provider/order-provider";
import type { OrderInputs, OrderOutputs } from "../provider/order-state";
import { PartialOrderError, PROVIDER_KEY, UNKNOWN } from "../provider/pulumi-host";
import { purchaseKey } from "../provider/idempotency";
import { EngineLog } from "./engine-log";
import { fromStruct, secretKeys, toStruct, type PropertyMap } from "./properties";
import { schemaText } from "./schema";

/** The resource and function tokens of the schema. */
export const TOKENS = {
  proxyOrder: "proxy:index:ProxyOrder",
  proxyFleet: "proxy:index:ProxyFleet",
  getProxies: "proxy:index:getProxies",
  getUsage: "proxy:index:getUsage",
} as const;

/** Outputs that are always secret. */
const SECRET_OUTPUTS = ["credentials"] as const;

/** Provider settings (`baseUrl`, `apiKey`): their schema names, and the `proxy:*` keys the core reads. */
const SETTINGS = Object.keys(CONFIG_KEYS) as (keyof typeof CONFIG_KEYS)[];

/** What the service depends on; tests shorten the core's waits. */
export interface ProviderServiceOptions {
  /** The engine's gRPC address (the plugin's first argument), for log messages. */
  engineAddress?: string;
  /** Options of the provider core. */
  core?: Omit<OrderProviderOptions, "log">;
}

/**
 * The parts of a resource URN, `urn:pulumi:<stack>::<project>::<type>::<name>`: its type, and the identity its
 * purchase key is derived from.
 */
export function parseUrn(urn: string): ResourceIdentity & { type: string } {
  const [head = "", project = "", type = "", ...name] = urn.split("::");
  const stack = head.replace(/^urn:pulumi:/, "");
  return { stack, project, type: type.split("$").pop() ?? type, resourceName: name.join("::") };
}

/** The provider setting (`baseUrl`) a `proxy:*` config key names, as CONFIG_KEYS pairs them. */
function settingOf(key: string): string | undefined {
  return SETTINGS.find((name) => CONFIG_KEYS[name].key === key);
}

type Handler<Req, Res> = (request: Req) => Promise<Res>;

/**
 * A gRPC unary method from an async handler; errors become gRPC statuses whose message is the error's.
 * `secretInputs` names the request's secret properties, which a partial result must keep secret.
 */
function unary<Req, Res>(handler: Handler<Req, Res>, secretInputs: (request: Req) => string[] = () => []): grpc.handleUnaryCall<Req, Res> {
  return (call, callback) => {
    handler(call.request).then(
      (response) => callback(null, response),
      (error: unknown) => callback(toServiceError(error, secretInputs(call.request))),
    );
  };
}

/**
 * A failed operation as the engine reads it. A partial create or update carries `ErrorResourceInitFailed`, so the
 * engine records the order (id and properties) although the operation failed: the same contract as the dynamic host.
 */
function toServiceError(error: unknown, secretInputs: string[]): Partial<grpc.StatusObject> & { message: string } {
  const message = error instanceof Error ? error.message : String(error);
  const metadata = new grpc.Metadata();
  if (error instanceof PartialOrderError) {
    const { [PROVIDER_KEY]: _provider, ...properties } = error.properties;
    const detail = new rpc.ErrorResourceInitFailed();
    detail.setId(error.id);
    detail.setProperties(toStruct(properties, [...SECRET_OUTPUTS, ...secretInputs]));
    detail.setReasonsList(error.reasons);
    const any = new Any();
    any.pack(detail.serializeBinary(), "pulumirpc.ErrorResourceInitFailed");
    const status = new Status();
    status.setCode(grpc.status.UNKNOWN);
    status.setMessage(message);
    status.addDetails(any);
    metadata.add("grpc-status-details-bin", Buffer.from(status.serializeBinary()));
  } else if (!(error instanceof ProxyError)) {
    // Not one of ours, so not written for users: keep its stack where a bug report can find it.
    process.stderr.write(`${error instanceof Error ? (error.stack ?? message) : message}\n`);
  }
  return { code: grpc.status.UNKNOWN, details: message, message, metadata };
}

/** Why `expiresBefore` cannot be used (the function's own words), or undefined when it is a time. */
function expiresBeforeProblem(value: string): string | undefined {
  try {
    parseExpiresBefore(value);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** The methods the service calls on a resource's core, whichever type its URN names, with properties as the engine sends them. */
interface ResourceMethods {
  check(olds: PropertyMap, news: PropertyMap): Promise<{ inputs: object; failures: Array<{ property: string; reason: string }> }>;
  diff(id: string, olds: PropertyMap, news: PropertyMap): Promise<{ changes: boolean; replaces: string[]; diffs: string[]; deleteBeforeReplace: boolean }>;
  create(inputs: PropertyMap, operation: OperationOptions): Promise<{ id: string; outs: object }>;
  read(id: string, props: PropertyMap): Promise<{ id?: string; props?: object; inputs?: object }>;
  /** `pulumi import`: the resource by id, with the inputs a program declaring it would have. */
  import(id: string, resource: ResourceIdentity): Promise<{ id: string; props: object; inputs: object }>;
  update(id: string, olds: PropertyMap, news: PropertyMap, operation: OperationOptions): Promise<{ outs: object }>;
  delete(id: string, props: PropertyMap): Promise<void>;
}

/** The core of the resource type a URN names; an unknown type is refused. */
function resourceCore(urn: string, options: OrderProviderOptions): ResourceMethods & { configure: OrderProvider["configure"] } {
  const { type } = parseUrn(urn);
  if (type === TOKENS.proxyOrder) {
    const order = createOrderProvider(options);
    return {
      configure: (req) => order.configure(req),
      check: (olds, news) => order.check(olds, news),
      diff: (id, olds, news) => order.diff(id, olds as unknown as OrderOutputs, news as unknown as OrderInputs),
      create: (inputs, operation) => order.create(inputs as unknown as OrderInputs, operation),
      read: (id, props) => order.read(id, props as unknown as OrderOutputs),
      import: (id, resource) => order.importOrder(id, resource),
      update: (id, olds, news, operation) => order.update(id, olds as unknown as OrderOutputs, news as unknown as OrderInputs, operation),
      delete: (id, props) => order.delete(id, props as unknown as OrderOutputs),
    };
  }
  if (type === TOKENS.proxyFleet) {
    const fleet = createFleetProvider(options);
    return {
      configure: (req) => fleet.configure(req),
      check: (olds, news) => fleet.check(olds, news),
      diff: (id, olds, news) => fleet.diff(id, olds as unknown as FleetOutputs, news as unknown as FleetInputs),
      create: (inputs, operation) => fleet.create(inputs as unknown as FleetInputs, operation),
      read: (id, props) => fleet.read(id, props as unknown as FleetOutputs),
      import: (id, resource) => fleet.importFleet(id, resource),
      update: (id, olds, news, operation) => fleet.update(id, olds as unknown as FleetOutputs, news as unknown as FleetInputs, operation),
      delete: (id, props) => fleet.delete(id, props as unknown as FleetOutputs),
    };
  }
  throw new ProxyError(`The proxy provider has no resource type "${type}"; it has ${TOKENS.proxyOrder} and ${TOKENS.proxyFleet}.`, "unknown_type");
}

/** Milliseconds of an engine timeout (seconds; 0 when no customTimeouts were set). */
function timeoutMs(seconds: number): number | undefined {
  return seconds > 0 ? Math.round(seconds * 1000) : undefined;
}

/**
 * One failure per provider setting that cannot be used; unknown values (preview) are not checked. A default
 * provider's settings are the stack's `proxy:*` config; an explicit provider's are its arguments, and its errors say so.
 */
function checkSettings(urn: string, news: PropertyMap, env: NodeJS.ProcessEnv): rpc.CheckFailure[] {
  const given = (name: string) => (typeof news[name] === "string" ? (news[name] as string) : undefined);
  if (SETTINGS.some((name) => news[name] === UNKNOWN)) return [];
  const { resourceName } = parseUrn(urn);
  const explicit = resourceName !== "" && !/^default(_|$)/.test(resourceName) && given("baseUrl") !== undefined;
  try {
    resolveSettings((key) => given(settingOf(key) ?? key), env, explicit ? `The baseUrl of provider "${resourceName}"` : undefined);
    return [];
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    const failure = new rpc.CheckFailure();
    failure.setProperty("");
    failure.setReason(error.message);
    return [failure];
  }
}

/** The service's handlers. Each engine operation gets a core with a log that belongs to its resource. */
export function createProviderService(options: ProviderServiceOptions = {}) {
  const engineLog = new EngineLog(options.engineAddress);
  let setting: (key: string) => string | undefined = () => undefined;
  // An explicit provider whose settings are still unknown (a preview): its resources cannot be judged by them yet.
  let settingsUnknown = false;
  // Aborted by Cancel (a graceful Ctrl-C): every wait in flight ends at once and is recorded as a partial create.
  const cancelled = new AbortController();
  const operation = (timeoutSeconds: number) => ({ timeoutMs: timeoutMs(timeoutSeconds), signal: cancelled.signal });

  // Messages about one resource go on its row; the rate limit's summary, about them all, on the stack's.
  const coreOptions = (urn?: string) => ({ ...options.core, log: engineLog.forResource(urn), summaryLog: engineLog.forResource(undefined) });
  const configured = async <P extends { configure: OrderProvider["configure"] }>(provider: P): Promise<P> => {
    await provider.configure({ config: { get: (key) => setting(key) } });
    return provider;
  };
  /** The core of the resource a URN names. */
  const core = (urn: string) => configured(resourceCore(urn, coreOptions(urn)));

  const service = {
    getPluginInfo: unary<Empty, PluginInfo>(async () => new PluginInfo().setVersion(VERSION)),

    getSchema: unary<rpc.GetSchemaRequest, rpc.GetSchemaResponse>(async (req) => {
      if (req.getVersion() !== 0) throw new ProxyError(`Schema version ${req.getVersion()} is not supported.`, "unsupported");
      return new rpc.GetSchemaResponse().setSchema(schemaText());
    }),

    /** Validates `baseUrl` and `apiKey` (with their environment fallbacks) before anything runs. */
    checkConfig: unary<rpc.CheckRequest, rpc.CheckResponse>(async (req) => {
      const news = fromStruct(req.getNews());
      return new rpc.CheckResponse().setInputs(toStruct(news, ["apiKey"])).setFailuresList(checkSettings(req.getUrn(), news, options.core?.env ?? process.env));
    }),

    /** A new URL or key changes the provider in place: its orders stay what they are, nothing is replaced. */
    diffConfig: unary<rpc.DiffRequest, rpc.DiffResponse>(async (req) => {
      const olds = fromStruct(req.getOlds());
      const news = fromStruct(req.getNews());
      const changed = SETTINGS.filter((name) => olds[name] !== news[name]);
      return new rpc.DiffResponse()
        .setChanges(changed.length > 0 ? rpc.DiffResponse.DiffChanges.DIFF_SOME : rpc.DiffResponse.DiffChanges.DIFF_NONE)
        .setDiffsList(changed);
    }),

    /**
     * The settings, from the checked provider inputs (`args`) when the engine sends them, else from its variables
     * (`proxy:baseUrl`, or the older `proxy:config:baseUrl`); the core falls back to the environment.
     */
    configure: unary<rpc.ConfigureRequest, rpc.ConfigureResponse>(async (req) => {
      const args = req.hasArgs() ? fromStruct(req.getArgs()) : undefined;
      const variables = req.getVariablesMap();
      settingsUnknown = SETTINGS.some((name) => args?.[name] === UNKNOWN);
      setting = (key) => {
        const name = settingOf(key) ?? key;
        const fromArgs = args?.[name];
        if (typeof fromArgs === "string" && fromArgs !== UNKNOWN) return fromArgs;
        return variables.get(key) ?? variables.get(`proxy:config:${name}`);
      };
      // No preview of create: the engine shows every output of a new order as unknown, which they are.
      return new rpc.ConfigureResponse().setAcceptsecrets(true).setSupportspreview(false);
    }),

    invoke: unary<rpc.InvokeRequest, rpc.InvokeResponse>(async (req) => {
      const args = fromStruct(req.getArgs());
      const api = (await configured(createOrderProvider(coreOptions()))).client();
      switch (req.getTok()) {
        case TOKENS.getProxies: {
          const failures: rpc.CheckFailure[] = [];
          for (const name of ["type", "country", "orderId", "expiresBefore"]) {
            if (args[name] !== undefined && typeof args[name] !== "string") {
              failures.push(new rpc.CheckFailure().setProperty(name).setReason(`${name} must be a string (got ${JSON.stringify(args[name])}).`));
            }
          }
          const badExpiry = typeof args.expiresBefore === "string" ? expiresBeforeProblem(args.expiresBefore) : undefined;
          if (badExpiry) failures.push(new rpc.CheckFailure().setProperty("expiresBefore").setReason(badExpiry));
          if (args.includeCredentials !== undefined && typeof args.includeCredentials !== "boolean") {
            failures.push(new rpc.CheckFailure().setProperty("includeCredentials").setReason("includeCredentials must be true or false."));
          }
          if (failures.length > 0) return new rpc.InvokeResponse().setFailuresList(failures);
          const includeCredentials = args.includeCredentials === true;
          const filters = {
            type: args.type as string | undefined,
            country: args.country as string | undefined,
            orderId: args.orderId as string | undefined,
            expiresBefore: args.expiresBefore as string | undefined,
          };
          const result = await listProxies(api, filters, includeCredentials);
          return new rpc.InvokeResponse().setReturn(toStruct(result, includeCredentials ? SECRET_OUTPUTS : []));
        }
        case TOKENS.getUsage:
          return new rpc.InvokeResponse().setReturn(toStruct(await api.getUsage()));
        default:
          throw new ProxyError(`The proxy provider has no function "${req.getTok()}".`, "unknown_function");
      }
    }),

    check: unary<rpc.CheckRequest, rpc.CheckResponse>(async (req) => {
      const urn = req.getUrn();
      const resource = await core(urn);
      const news = fromStruct(req.getNews());
      // The key the dynamic SDK derives in the program, derived here from the URN: the same purchase either way.
      if (news.idempotencyKey === undefined && news.planId !== undefined) {
        news.idempotencyKey =
          typeof news.planId === "string" && news.planId !== UNKNOWN
            ? purchaseKey({ ...parseUrn(urn), planId: news.planId })
            : UNKNOWN;
      }
      const checked = await resource.check(fromStruct(req.getOlds()), news);
      const failures = settingsUnknown ? checked.failures.filter((f) => f.property !== "") : checked.failures;
      return new rpc.CheckResponse()
        .setInputs(toStruct(checked.inputs, secretKeys(req.getNews())))
        .setFailuresList(failures.map((f) => new rpc.CheckFailure().setProperty(f.property).setReason(f.reason)));
    }),

    diff: unary<rpc.DiffRequest, rpc.DiffResponse>(async (req) => {
      const result = await (await core(req.getUrn())).diff(req.getId(), fromStruct(req.getOlds()), fromStruct(req.getNews()));
      return new rpc.DiffResponse()
        .setChanges(result.changes ? rpc.DiffResponse.DiffChanges.DIFF_SOME : rpc.DiffResponse.DiffChanges.DIFF_NONE)
        .setReplacesList(result.replaces)
        .setDiffsList(result.diffs)
        .setDeletebeforereplace(result.deleteBeforeReplace);
    }),

    create: unary<rpc.CreateRequest, rpc.CreateResponse>(async (req) => {
      const resource = await core(req.getUrn());
      const { id, outs } = await resource.create(fromStruct(req.getProperties()), operation(req.getTimeout()));
      return new rpc.CreateResponse().setId(id).setProperties(toStruct(outs, [...SECRET_OUTPUTS, ...secretKeys(req.getProperties())]));
    }, (req) => secretKeys(req.getProperties())),

    /** Refresh, and `pulumi import` (no stored properties): an empty id tells the engine the resource is gone. */
    read: unary<rpc.ReadRequest, rpc.ReadResponse>(async (req) => {
      const urn = req.getUrn();
      const resource = await core(urn);
      const stored = fromStruct(req.getProperties());
      const result =
        Object.keys(stored).length === 0 ? await resource.import(req.getId(), parseUrn(urn)) : await resource.read(req.getId(), stored);
      const response = new rpc.ReadResponse().setId(result.id ?? "");
      if (result.props) response.setProperties(toStruct(result.props, [...SECRET_OUTPUTS, ...secretKeys(req.getProperties())]));
      if (result.inputs) response.setInputs(toStruct(result.inputs, secretKeys(req.getInputs())));
      return response;
    }),

    update: unary<rpc.UpdateRequest, rpc.UpdateResponse>(async (req) => {
      const resource = await core(req.getUrn());
      const { outs } = await resource.update(req.getId(), fromStruct(req.getOlds()), fromStruct(req.getNews()), operation(req.getTimeout()));
      return new rpc.UpdateResponse().setProperties(toStruct(outs, [...SECRET_OUTPUTS, ...secretKeys(req.getNews())]));
    }, (req) => secretKeys(req.getNews())),

    delete: unary<rpc.DeleteRequest, Empty>(async (req) => {
      await (await core(req.getUrn())).delete(req.getId(), fromStruct(req.getProperties()));
      return new Empty();
    }),

    /**
     * The engine's graceful shutdown (Ctrl-C): waits end now, each order recorded in the state as a timeout would be,
     * so the next `up` resumes them without buying. A purchase already sent is left to finish: its answer is the id.
     */
    cancel: unary<Empty, Empty>(async () => {
      cancelled.abort();
      return new Empty();
    }),
  };
  return { service, close: () => engineLog.close() };
}

/** A running plugin server. */
export interface PluginServer {
  /** The loopback port it listens on (what the plugin prints for the engine). */
  port: number;
  close(): Promise<void>;
}

/** Starts the service on a free loopback port. Methods it does not implement answer UNIMPLEMENTED. */
export async function startPluginServer(options: ProviderServiceOptions = {}): Promise<PluginServer> {
  const server = new grpc.Server({
    // As @pulumi/pulumi's own servers: states and schemas can be large.
    "grpc.max_receive_message_length": 400 * 1024 * 1024,
    "grpc.max_send_message_length": 400 * 1024 * 1024,
  });
  const { service, close } = createProviderService(options);
  server.addService(ResourceProviderService, service as unknown as grpc.UntypedServiceImplementation);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        close();
        server.tryShutdown(() => resolve());
      }),
  };
}
