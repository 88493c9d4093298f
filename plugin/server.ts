/**
 * The provider plugin `proxy`: Pulumi's `ResourceProvider` gRPC service, implemented on the generated stubs that ship
 * inside @pulumi/pulumi and on the same provider core as the dynamic provider (provider/order/order-provider.ts).
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
import { ProxyError, VERSION } from "../client";
import {
  FUNCTIONS,
  GET_PROXIES,
  GET_USAGE,
  PartialOrderError,
  PROVIDER_KEY,
  type ProviderSeams,
  PROXY_FLEET,
  PROXY_ORDER,
  purchaseKey,
  RESOURCES,
  secretNames,
  SETTING_NAMES,
  settingsProblem,
  UNKNOWN,
} from "../provider";
import { EngineLog, logCallsTo, traceOperation } from "../tracing";
import { fromStruct, secretKeys, toStruct } from "./properties";
import { functionType } from "./registry";
import { schemaText } from "./schema";
import { parseUrn, PluginState } from "./state";

/** The resource and function tokens of the schema. */
export const TOKENS = {
  proxyOrder: PROXY_ORDER.token,
  proxyFleet: PROXY_FLEET.token,
  getProxies: GET_PROXIES.token,
  getUsage: GET_USAGE.token,
} as const;

/** The plugin's name in traces. */
const PLUGIN_SERVICE_NAME = "pulumi-resource-proxy";

/** Outputs that are always secret, of any resource or function (`credentials`). */
const SECRET_OUTPUTS = [...new Set([...RESOURCES, ...FUNCTIONS].flatMap((spec) => secretNames(spec.outputs)))];

/** What the service depends on. */
export interface ProviderServiceOptions {
  /** The engine's gRPC address (the plugin's first argument), for log messages. */
  engineAddress?: string;
  /** What a test replaces in every provider core (its environment, clock, accounts); the plugin sets none of it. */
  testing?: ProviderSeams;
}

export { parseUrn } from "./state";

type Handler<Req, Res> = (request: Req) => Promise<Res>;

/**
 * A gRPC unary method from an async handler; errors become gRPC statuses whose message is the error's.
 * `secretInputs` names the request's secret properties, which a partial result must keep secret.
 */
function unary<Req, Res>(handler: Handler<Req, Res>, secretInputs: (request: Req) => string[] = () => []): grpc.handleUnaryCall<Req, Res> {
  return (call, callback) => {
    // Under the engine's span for this call when it asked for traces (tracing/): it sends the span in the metadata.
    const [traceparent] = call.metadata.get("traceparent");
    const urn = (call.request as { getUrn?: () => string }).getUrn?.();
    const run = () => handler(call.request);
    traceOperation(PLUGIN_SERVICE_NAME, call.getPath(), { "pulumi.urn": urn }, run, typeof traceparent === "string" ? traceparent : undefined).then(
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

/** Check failures as the engine reads them. */
function checkFailures(failures: Array<{ property: string; reason: string }>): rpc.CheckFailure[] {
  return failures.map((f) => new rpc.CheckFailure().setProperty(f.property).setReason(f.reason));
}

/** A diff's answer: DIFF_SOME or DIFF_NONE, and the properties named. */
function diffResponse(changes: boolean, diffs: string[], replaces: string[] = [], deleteBeforeReplace = false): rpc.DiffResponse {
  return new rpc.DiffResponse()
    .setChanges(changes ? rpc.DiffResponse.DiffChanges.DIFF_SOME : rpc.DiffResponse.DiffChanges.DIFF_NONE)
    .setReplacesList(replaces)
    .setDiffsList(diffs)
    .setDeletebeforereplace(deleteBeforeReplace);
}

/** GetPluginInfo and GetSchema. */
function packageHandlers() {
  return {
    getPluginInfo: unary<Empty, PluginInfo>(async () => new PluginInfo().setVersion(VERSION)),
    getSchema: unary<rpc.GetSchemaRequest, rpc.GetSchemaResponse>(async (req) => {
      if (req.getVersion() !== 0) throw new ProxyError(`Schema version ${req.getVersion()} is not supported.`, "unsupported");
      return new rpc.GetSchemaResponse().setSchema(schemaText());
    }),
  };
}

/** The provider's own settings: CheckConfig, DiffConfig, Configure. */
function settingsHandlers(state: PluginState, env: NodeJS.ProcessEnv) {
  return {
    /** Validates `baseUrl` and `apiKey` (with their environment fallbacks) before anything runs; unknown values pass. */
    checkConfig: unary<rpc.CheckRequest, rpc.CheckResponse>(async (req) => {
      const news = fromStruct(req.getNews());
      const known = !SETTING_NAMES.some((name) => news[name] === UNKNOWN);
      const problem = known ? settingsProblem(news, env, parseUrn(req.getUrn()).resourceName) : undefined;
      return new rpc.CheckResponse().setInputs(toStruct(news, ["apiKey"])).setFailuresList(checkFailures(problem ? [{ property: "", reason: problem }] : []));
    }),

    /** A new URL or key changes the provider in place: its orders stay what they are, nothing is replaced. */
    diffConfig: unary<rpc.DiffRequest, rpc.DiffResponse>(async (req) => {
      const olds = fromStruct(req.getOlds());
      const news = fromStruct(req.getNews());
      const changed = SETTING_NAMES.filter((name) => olds[name] !== news[name]);
      return diffResponse(changed.length > 0, changed);
    }),

    /** The settings, from the checked provider arguments when the engine sends them, else its variables (config.ts). */
    configure: unary<rpc.ConfigureRequest, rpc.ConfigureResponse>(async (req) => {
      state.configure(req.hasArgs() ? fromStruct(req.getArgs()) : undefined, new Map(req.getVariablesMap().getEntryList()));
      // No preview of create: the engine shows every output of a new order as unknown, which they are.
      return new rpc.ConfigureResponse().setAcceptsecrets(true).setSupportspreview(false);
    }),
  };
}

/** Invoke: the function its token names (registry.ts), its failures or its result with its secret outputs marked. */
function invokeHandler(state: PluginState) {
  return unary<rpc.InvokeRequest, rpc.InvokeResponse>(async (req) => {
    const call = functionType(req.getTok());
    const answer = await call(await state.client(), fromStruct(req.getArgs()));
    if (answer.failures) return new rpc.InvokeResponse().setFailuresList(checkFailures(answer.failures));
    return new rpc.InvokeResponse().setReturn(toStruct(answer.result, answer.secret));
  });
}

/** The resource operations, each on the core of the resource its URN names. */
function resourceHandlers(state: PluginState) {
  return {
    check: unary<rpc.CheckRequest, rpc.CheckResponse>(async (req) => {
      const urn = req.getUrn();
      const news = fromStruct(req.getNews());
      // The key the dynamic SDK derives in the program, derived here from the URN: the same purchase either way.
      if (news.idempotencyKey === undefined && news.planId !== undefined) {
        const known = typeof news.planId === "string" && news.planId !== UNKNOWN;
        news.idempotencyKey = known ? purchaseKey({ ...parseUrn(urn), planId: String(news.planId) }) : UNKNOWN;
      }
      const checked = await (await state.core(urn)).check(fromStruct(req.getOlds()), news);
      const failures = state.settingsUnknown ? checked.failures.filter((f) => f.property !== "") : checked.failures;
      return new rpc.CheckResponse().setInputs(toStruct(checked.inputs, secretKeys(req.getNews()))).setFailuresList(checkFailures(failures));
    }),

    diff: unary<rpc.DiffRequest, rpc.DiffResponse>(async (req) => {
      const result = await (await state.core(req.getUrn())).diff(req.getId(), fromStruct(req.getOlds()), fromStruct(req.getNews()));
      return diffResponse(result.changes, result.diffs, result.replaces, result.deleteBeforeReplace);
    }),

    create: unary<rpc.CreateRequest, rpc.CreateResponse>(async (req) => {
      const core = await state.core(req.getUrn());
      const { id, outs } = await core.create(fromStruct(req.getProperties()), state.operation(req.getTimeout()));
      return new rpc.CreateResponse().setId(id).setProperties(toStruct(outs, [...SECRET_OUTPUTS, ...secretKeys(req.getProperties())]));
    }, (req) => secretKeys(req.getProperties())),

    /** Refresh, and `pulumi import` (no stored properties): an empty id tells the engine the resource is gone. */
    read: unary<rpc.ReadRequest, rpc.ReadResponse>(async (req) => {
      const urn = req.getUrn();
      const core = await state.core(urn);
      const stored = fromStruct(req.getProperties());
      const result = Object.keys(stored).length === 0 ? await core.import(req.getId(), parseUrn(urn)) : await core.read(req.getId(), stored);
      const response = new rpc.ReadResponse().setId(result.id ?? "");
      if (result.props) response.setProperties(toStruct(result.props, [...SECRET_OUTPUTS, ...secretKeys(req.getProperties())]));
      if (result.inputs) response.setInputs(toStruct(result.inputs, secretKeys(req.getInputs())));
      return response;
    }),

    update: unary<rpc.UpdateRequest, rpc.UpdateResponse>(async (req) => {
      const core = await state.core(req.getUrn());
      const { outs } = await core.update(req.getId(), fromStruct(req.getOlds()), fromStruct(req.getNews()), state.operation(req.getTimeout()));
      return new rpc.UpdateResponse().setProperties(toStruct(outs, [...SECRET_OUTPUTS, ...secretKeys(req.getNews())]));
    }, (req) => secretKeys(req.getNews())),

    delete: unary<rpc.DeleteRequest, Empty>(async (req) => {
      await (await state.core(req.getUrn())).delete(req.getId(), fromStruct(req.getProperties()));
      return new Empty();
    }),
  };
}

/** The handlers, each answering only once the log messages its operation sent have reached the engine (EngineLog.delivered). */
function afterLogs(service: grpc.UntypedServiceImplementation, log: EngineLog): grpc.UntypedServiceImplementation {
  // Every handler here is unary (unary() above).
  const answerLater = (handler: grpc.handleUnaryCall<unknown, unknown>): grpc.handleUnaryCall<unknown, unknown> => (call, callback) =>
    handler(call, (...answer) => void log.delivered().then(() => callback(...answer)));
  return Object.fromEntries(Object.entries(service).map(([name, handler]) => [name, answerLater(handler as grpc.handleUnaryCall<unknown, unknown>)]));
}

/** The service's handlers. */
export function createProviderService(options: ProviderServiceOptions = {}) {
  const engineLog = new EngineLog(options.engineAddress);
  if (options.engineAddress) logCallsTo((line) => engineLog.debug(line));
  const state = new PluginState(options.testing, engineLog);
  const service = {
    ...packageHandlers(),
    ...settingsHandlers(state, options.testing?.env ?? process.env),
    invoke: invokeHandler(state),
    ...resourceHandlers(state),
    /**
     * The engine's graceful shutdown (Ctrl-C): waits end now, each order recorded in the state as a timeout would be,
     * so the next `up` resumes them without buying. A purchase already sent is left to finish: its answer is the id.
     */
    cancel: unary<Empty, Empty>(async () => {
      state.cancel();
      return new Empty();
    }),
  };
  return { service: afterLogs(service, engineLog), close: () => engineLog.close() };
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
  server.addService(ResourceProviderService, service);
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
