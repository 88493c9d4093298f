/**
 * What every resource's provider methods share: the settings (`configure`, with the environment as fallback), the
 * process's API client for them, the purchase flow, deadlines, and how a refresh explains a key it cannot use.
 */
import { AuthenticationError, type ClientOptions, type Clock, PermissionError, realClock, type RetryEvent } from "../../client";
import { processCallTracer } from "../../tracing";
import { processAccounts, type Account, type Accounts } from "../api/account";
import { ConfigurationError, misspeltHint, misspeltSettings, resolveSettings, toldByProgram, type ConfigLookup, type MisspeltSetting, type SettingNames } from "./config";
import { formatDuration, parseDuration } from "../shared/duration";
import { checkFields, withDefaults, type ResourceSpec } from "../schema/fields";
import type { CheckLimits } from "./health-check";
import { createPurchaseFlow, type PurchaseFlow } from "../api/purchase";
import { UNKNOWN } from "../shared/pulumi-host";
import type { ProviderLog } from "../api/rate-limit-report";

/** What a 401 or 403 during refresh means: the key used is the one stored with the stack's last `pulumi up`. */
const STORED_CONFIG_ADVICE =
  "During `pulumi refresh` and `pulumi destroy`, Pulumi runs the provider with the stack configuration stored in the " +
  "state by the last `pulumi up`, not the one you have now. If you rotated the key, run `pulumi up` or " +
  "`pulumi refresh --run-program` to apply the new one.";

/** The misspelt settings this process has warned of (ProviderCore.configure). */
const warnedMisspelt = new Set<string>();

/** What the provider methods depend on; tests replace parts of it. */
export interface ProviderOptions {
  log?: ProviderLog;
  /** How users of this front end start the local sandbox, for messages. @default `npx pulumi-proxy-sandbox` */
  sandboxCommand?: string;
  /**
   * Whether the program's own process says a problem with the settings in full, once, as the stack's error (the
   * dynamic SDK does when a resource is made: dynamic-sdk/program-settings.ts). Each resource's check failure then
   * says only its first sentence, instead of the whole fix once per resource. @default false
   */
  settingsToldByProgram?: boolean;
  /** Where the rate limit's summary of the whole process goes. @default `log` */
  summaryLog?: ProviderLog;
  /** What a test replaces; a program and the plugin set none of it. */
  testing?: ProviderSeams;
}

/** What a test of the provider replaces ({@link ProviderOptions.testing}); each defaults to the process's own. */
export interface ProviderSeams {
  /** Environment for the `PROXY_API_*` fallbacks. @default process.env */
  env?: NodeJS.ProcessEnv;
  /** The accounts the core shares with the process (tests start clean with their own). @default the process's */
  accounts?: Accounts;
  /** Extra options of the account's client, such as a dispatcher or a budget to share (tests change the attempts). */
  client?: Partial<ClientOptions>;
  /**
   * The one clock of the core: the time an order's expiry and every deadline are judged by, and what the waits for an
   * order, for a 404 to hold and for the rate limit, and the API client's back-offs, pass on (tests use the sandbox's
   * clock). An account's client keeps the clock of the core that first used the account. @default the real clock
   */
  clock?: Clock;
}

/** Where `configure` reads the `proxy:*` settings: the stack's config, or a provider plugin's own settings. */
export interface ConfigureArgs {
  config: {
    get(key: string): string | undefined;
    /**
     * Every config value, by key, to name a misspelt setting. The dynamic provider host's `Config` carries the stack's
     * whole config here (`cmd/dynamic-provider/config.js` of @pulumi/pulumi); the plugin passes its own.
     */
    readonly rawConfig?: Readonly<Record<string, unknown>>;
  };
}

/** Options of one create or update, from the engine rather than the inputs. */
export interface OperationOptions {
  /** The deadline of the wait in milliseconds, instead of `readyTimeout` (a plugin's `customTimeouts`). */
  timeoutMs?: number;
  /** Ends the wait at once, recording the order as a timeout would (a plugin's `Cancel`, on Ctrl-C). */
  signal?: AbortSignal;
}

/** What every resource's provider methods share: one per provider object. */
export class ProviderCore {
  readonly log: ProviderLog;
  /** The core's one clock (its option `clock`): expiry, deadlines, and every wait, the API client's included. */
  readonly clock: Clock;
  readonly flow: PurchaseFlow;
  private lookup: ConfigLookup = () => undefined;
  private misspelt: MisspeltSetting[] = [];

  private readonly seams: ProviderSeams;

  constructor(private readonly options: ProviderOptions = {}) {
    this.log = options.log ?? pulumiLog();
    this.seams = options.testing ?? {};
    this.clock = this.seams.clock ?? realClock;
    this.flow = createPurchaseFlow({ log: this.log });
  }

  /** The account of the current settings, shared with the process's other cores on the same base URL and key (account.ts). */
  account(): Account {
    const { baseUrl, apiKey, maxRateShare } = resolveSettings(this.lookup, this.seams.env ?? process.env, this.names());
    const options = {
      baseUrl,
      apiKey,
      maxRateShare,
      tracer: processCallTracer,
      clock: this.clock,
      onRetry: (e: RetryEvent) =>
        this.log.info(`proxy: ${e.method} ${e.path} failed (${e.status ?? e.code}); retry ${e.attempt} in ${formatDuration(e.delayMs)}`),
      ...this.seams.client,
    };
    return (this.seams.accounts ?? processAccounts).of(options, this.options.summaryLog ?? this.log);
  }

  /** The account, or undefined while the settings are missing or unusable (check reports them; a diff goes on without). */
  accountIfConfigured(): Account | undefined {
    try {
      return this.account();
    } catch (error) {
      if (error instanceof ConfigurationError) return undefined;
      throw error;
    }
  }

  /** How messages about the settings name things for this front end's users. */
  private names(): SettingNames {
    return { sandboxCommand: this.options.sandboxCommand, misspelt: this.misspelt };
  }

  /**
   * Receives the settings once per provider process: the stack's config, or a provider plugin's own settings. A key
   * that looks like a setting misspelt is named: in the error of a setting that is missing, else in one warning.
   */
  configure(req: ConfigureArgs): void {
    this.lookup = (key) => req.config.get(key);
    this.misspelt = misspeltSettings(Object.keys(req.config.rawConfig ?? {}));
    const hint = misspeltHint(this.misspelt);
    // Once per process: every resource's provider object is configured with the same settings.
    if (hint && !this.configProblem() && !warnedMisspelt.has(hint)) {
      warnedMisspelt.add(hint);
      this.log.warn(`proxy:${hint}`);
    }
  }

  /**
   * The check failure of a preview that could never run (missing or unsafe configuration), if any. A check failure
   * prints as one line on the resource; a thrown error would also be printed with its stack by the dynamic host.
   */
  configFailures(): Array<{ property: string; reason: string }> {
    const problem = this.configProblem();
    if (!problem) return [];
    return [{ property: "", reason: this.options.settingsToldByProgram ? toldByProgram(problem) : problem }];
  }

  /** What is wrong with the settings, if anything: the message of their ConfigurationError. */
  private configProblem(): string | undefined {
    try {
      resolveSettings(this.lookup, this.seams.env ?? process.env, this.names());
      return undefined;
    } catch (error) {
      if (!(error instanceof ConfigurationError)) throw error;
      return error.message;
    }
  }

  /**
   * A resource's `check`: one failure per bad input or unusable setting, and a key the API refuses (one read per
   * process: Account.keyRefusal), and the inputs with their defaults. Preview and up run it alike, before anything
   * is bought.
   */
  async check<T>(resource: ResourceSpec, news: object): Promise<{ inputs: T; failures: Array<{ property: string; reason: string }> }> {
    const failures = [...checkFields(resource.inputs, news, UNKNOWN), ...this.configFailures()];
    const refused = failures.length === 0 ? await this.accountIfConfigured()?.keyRefusal() : undefined;
    if (refused) failures.push({ property: "", reason: refused });
    return { inputs: withDefaults(resource.inputs, news) as T, failures };
  }

  /** When an operation must end: the deadline of a purchase's turn under the rate limit and of the wait. */
  deadlineOf(inputs: { readyTimeout: string }, operation: OperationOptions): number {
    return this.clock.now() + (operation.timeoutMs ?? parseDuration(inputs.readyTimeout) ?? 0);
  }

  /** What cuts an operation's health check short: the engine's cancel and the operation's deadline (health-check.ts). */
  checkLimits(inputs: { readyTimeout: string }, operation: OperationOptions): CheckLimits {
    return { signal: operation.signal, deadline: this.deadlineOf(inputs, operation), clock: this.clock };
  }

  /** A 401 or 403 during refresh says which configuration a refresh uses. */
  async explainStoredConfig<T>(read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (error) {
      if (error instanceof AuthenticationError || error instanceof PermissionError) {
        const said = error.message.replace(/\s*\(request id [^)]*\)$/, "");
        throw error.withMessage(`${said} ${STORED_CONFIG_ADVICE}${error.requestId ? ` (request id ${error.requestId})` : ""}`);
      }
      throw error;
    }
  }
}

/** Pulumi's log, loaded lazily: it is only there when the provider runs under the Pulumi engine. */
function pulumiLog(): ProviderLog {
  const pulumiModule = () => require("@pulumi/pulumi") as typeof import("@pulumi/pulumi");
  return {
    info: (message) => void pulumiModule().log.info(message),
    warn: (message) => void pulumiModule().log.warn(message),
  };
}
