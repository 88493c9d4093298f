/**
 * The two front ends as the engine calls them, over real gRPC on loopback: Pulumi's own dynamic provider host
 * (`@pulumi/pulumi/cmd/dynamic-provider`, a child process that loads the one-line provider the state stores), and the
 * provider plugin's service. Every property crosses `google.protobuf.Struct` exactly as under `pulumi up`.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { ResourceProviderClient } from "@pulumi/pulumi/proto/provider_grpc_pb";
import * as rpc from "@pulumi/pulumi/proto/provider_pb";
import { specialSecretSig, specialSigKey } from "@pulumi/pulumi/runtime/rpc";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { reveal } from "../../plugin/properties";
import { startPluginServer } from "../../plugin/server";
import { PROVIDER_KEY, SERIALIZED_FLEET_PROVIDER, SERIALIZED_PROVIDER } from "../../provider/shared/pulumi-host";
import { REPO_ROOT } from "./pulumi";

/** Properties as a program sees them: secrets revealed. */
export type Props = Record<string, unknown>;

/** One front end, called as the engine calls it. */
export interface EngineFront {
  readonly name: "dynamic provider" | "plugin";
  create(kind: "ProxyOrder" | "ProxyFleet", inputs: Props): Promise<{ id: string; outs: Props }>;
  read(kind: "ProxyOrder" | "ProxyFleet", id: string, props: Props): Promise<{ id: string; props: Props; inputs: Props }>;
  update(kind: "ProxyOrder" | "ProxyFleet", id: string, olds: Props, news: Props): Promise<Props>;
  /** Invokes a function (the plugin only: dynamic providers have no invokes): its result, revealed, and its secret keys. */
  invoke?(token: string, args: Props): Promise<{ result: Props; secret: string[] }>;
  close(): Promise<void>;
}

const struct = (value: Props) => Struct.fromJavaScript(value as Parameters<typeof Struct.fromJavaScript>[0]);
const isSecret = (value: unknown) => typeof value === "object" && value !== null && (value as Props)[specialSigKey] === specialSecretSig;

function unary<Res>(client: ResourceProviderClient, method: keyof ResourceProviderClient, req: unknown): Promise<Res> {
  const fn = client[method] as unknown as (req: unknown, cb: (e: grpc.ServiceError | null, r: Res) => void) => unknown;
  return new Promise((resolve, reject) => fn.call(client, req, (error, response) => (error ? reject(error) : resolve(response))));
}

function frontOn(name: EngineFront["name"], client: ResourceProviderClient, urn: (kind: string) => string, providerOf: (kind: string) => Props, stop: () => Promise<void>): EngineFront {
  const call = <Res>(method: keyof ResourceProviderClient, req: unknown) => unary<Res>(client, method, req);
  return {
    name,
    async create(kind, inputs) {
      const response = await call<rpc.CreateResponse>("create", new rpc.CreateRequest().setUrn(urn(kind)).setProperties(struct({ ...inputs, ...providerOf(kind) })));
      return { id: response.getId(), outs: reveal(response.getProperties()?.toJavaScript() ?? {}) as Props };
    },
    async read(kind, id, props) {
      const request = new rpc.ReadRequest().setUrn(urn(kind)).setId(id).setProperties(struct({ ...props, ...providerOf(kind) }));
      const response = await call<rpc.ReadResponse>("read", request);
      return { id: response.getId(), props: reveal(response.getProperties()?.toJavaScript() ?? {}) as Props, inputs: reveal(response.getInputs()?.toJavaScript() ?? {}) as Props };
    },
    async update(kind, id, olds, news) {
      const request = new rpc.UpdateRequest().setUrn(urn(kind)).setId(id).setOlds(struct({ ...olds, ...providerOf(kind) })).setNews(struct({ ...news, ...providerOf(kind) }));
      return reveal((await call<rpc.UpdateResponse>("update", request)).getProperties()?.toJavaScript() ?? {}) as Props;
    },
    close: async () => {
      client.close();
      await stop();
    },
  };
}

/** Configure's arguments for an API at `url` with `apiKey`, as each front end names them. */
type Settings = { url: string; apiKey: string };

/**
 * Pulumi's dynamic provider host in a child process, as the CLI starts it, configured with the stack's `proxy:*`
 * config. It loads `pulumi-proxy/provider` by name, from a folder whose node_modules links to this package's build.
 */
export async function startDynamicHost(settings: Settings): Promise<EngineFront> {
  const home = mkdtempSync(join(tmpdir(), "pulumi-proxy-host-"));
  mkdirSync(join(home, "node_modules"));
  symlinkSync(REPO_ROOT, join(home, "node_modules", "pulumi-proxy"), "dir");
  const host: ChildProcess = spawn(process.execPath, [join(REPO_ROOT, "node_modules", "@pulumi", "pulumi", "cmd", "dynamic-provider", "index.js"), "127.0.0.1:1"], {
    cwd: home,
    env: { ...process.env, PULUMI_PROJECT: "shop", PULUMI_STACK: "dev", PROXY_API_BASE_URL: "", PROXY_API_KEY: "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = "";
    host.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
      const line = /^(\d+)\n/.exec(out);
      if (line) resolve(Number(line[1]));
    });
    host.on("exit", (code) => reject(new Error(`the dynamic provider host exited (${code}) before it listened`)));
  });
  const client = new ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  const args = struct({ "proxy:baseUrl": settings.url, "proxy:apiKey": settings.apiKey });
  await unary<rpc.ConfigureResponse>(client, "configure", new rpc.ConfigureRequest().setArgs(args));
  const stop = async () => {
    host.kill();
    rmSync(home, { recursive: true, force: true });
  };
  const provider = (kind: string) => ({ [PROVIDER_KEY]: kind === "ProxyFleet" ? SERIALIZED_FLEET_PROVIDER : SERIALIZED_PROVIDER });
  return frontOn("dynamic provider", client, (kind) => `urn:pulumi:dev::shop::pulumi-nodejs:dynamic/proxy:${kind}::r`, provider, stop);
}

/** The provider plugin's gRPC service, configured as an explicit provider with `baseUrl` and a secret `apiKey`. */
export async function startPlugin(settings: Settings): Promise<EngineFront> {
  const server = await startPluginServer({ testing: { env: {} } });
  const client = new ResourceProviderClient(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure());
  const args = struct({ baseUrl: settings.url, apiKey: { [specialSigKey]: specialSecretSig, value: settings.apiKey } });
  await unary<rpc.ConfigureResponse>(client, "configure", new rpc.ConfigureRequest().setArgs(args).setAcceptsecrets(true));
  const front = frontOn("plugin", client, (kind) => `urn:pulumi:dev::shop::proxy:index:${kind}::r`, () => ({}), () => server.close());
  const invoke = async (token: string, invokeArgs: Props) => {
    const response = await unary<rpc.InvokeResponse>(client, "invoke", new rpc.InvokeRequest().setTok(token).setArgs(struct(invokeArgs)));
    const failures = response.getFailuresList().map((f) => `${f.getProperty()}: ${f.getReason()}`);
    if (failures.length > 0) throw new Error(failures.join("; "));
    const raw = response.getReturn()?.toJavaScript() ?? {};
    return { result: reveal(raw) as Props, secret: Object.keys(raw).filter((k) => isSecret(raw[k])) };
  };
  return { ...front, invoke };
}
