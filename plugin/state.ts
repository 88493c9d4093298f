/**
 * What the plugin's service holds between calls: the provider's settings once configured, one core per resource for
 * them (made from the registry), the client the functions use, and the cancellation that ends every wait; and the
 * parts of a resource's URN, which name its type and the identity its purchase key is derived from.
 */
import type { ProxyApiClient } from "../client";
import {
  type ConfigLookup,
  type OperationOptions,
  OrderProvider,
  type OrderProviderOptions,
  pluginSettings,
  type ProviderSeams,
  type ResourceIdentity,
  SANDBOX_COMMANDS,
  SETTING_NAMES,
  UNKNOWN,
} from "../provider";
import type { EngineLog } from "../tracing";
import type { PropertyMap } from "./properties";
import { resourceType, type ResourceMethods } from "./registry";

/**
 * The parts of a resource URN, `urn:pulumi:<stack>::<project>::<type>::<name>`: its type, and the identity its
 * purchase key is derived from.
 */
export function parseUrn(urn: string): ResourceIdentity & { type: string } {
  const [head = "", project = "", type = "", ...name] = urn.split("::");
  const stack = head.replace(/^urn:pulumi:/, "");
  return { stack, project, type: type.split("$").pop() ?? type, resourceName: name.join("::") };
}

/**
 * What the service holds between calls: the provider's settings once configured, one core per resource for them, and
 * the cancellation that ends every wait. Messages about one resource go on its row; the rate limit's summary, about
 * them all, on the stack's.
 */
export class PluginState {
  private settings: ConfigLookup = () => undefined;
  private rawConfig: Record<string, unknown> = {};
  private readonly cores = new Map<string, Promise<ResourceMethods>>();
  private functionsCore: OrderProvider | undefined;
  /** An explicit provider whose settings are still unknown (a preview): its resources cannot be judged by them yet. */
  settingsUnknown = false;
  // Aborted by Cancel (a graceful Ctrl-C): every wait in flight ends at once and is recorded as a partial create.
  private readonly cancelled = new AbortController();

  constructor(
    private readonly testing: ProviderSeams | undefined,
    private readonly engineLog: EngineLog,
  ) {}

  /** Takes the provider's settings; the cores made for earlier ones are dropped. */
  configure(args: PropertyMap | undefined, variables: ReadonlyMap<string, string>): void {
    this.settingsUnknown = SETTING_NAMES.some((name) => args?.[name] === UNKNOWN);
    this.settings = pluginSettings(args, variables, UNKNOWN);
    // Every key given, as the stack's config names them, so that a misspelt one can be named (provider-core.ts).
    this.rawConfig = { ...Object.fromEntries(variables), ...Object.fromEntries(Object.entries(args ?? {}).map(([name, value]) => [`proxy:${name}`, value])) };
    this.cores.clear();
    this.functionsCore = undefined;
  }

  /** The core of the resource a URN names, made once for the current settings (calls in flight share it). */
  core(urn: string): Promise<ResourceMethods> {
    let core = this.cores.get(urn);
    if (!core) {
      const made = resourceType(parseUrn(urn).type, this.coreOptions(urn));
      core = made.configure(this.configureArgs()).then(() => made);
      this.cores.set(urn, core);
    }
    return core;
  }

  /** The API client for the functions (invokes), for the current settings. */
  async client(): Promise<ProxyApiClient> {
    if (!this.functionsCore) {
      this.functionsCore = new OrderProvider(this.coreOptions(undefined));
      await this.functionsCore.configure(this.configureArgs());
    }
    return this.functionsCore.client();
  }

  /** Options of one create or update: its timeout (seconds, 0 when none was set), and the cancellation. */
  operation(timeoutSeconds: number): OperationOptions {
    return { timeoutMs: timeoutSeconds > 0 ? Math.round(timeoutSeconds * 1000) : undefined, signal: this.cancelled.signal };
  }

  cancel(): void {
    this.cancelled.abort();
  }

  private configureArgs() {
    return { config: { get: (key: string) => this.settings(key), rawConfig: this.rawConfig } };
  }

  private coreOptions(urn: string | undefined): OrderProviderOptions {
    return {
      log: this.engineLog.forResource(urn),
      summaryLog: this.engineLog.forResource(undefined),
      sandboxCommand: SANDBOX_COMMANDS.plugin,
      testing: this.testing,
    };
  }
}
