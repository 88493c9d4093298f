/**
 * `pulumi-proxy check-api` (and `pulumi-resource-proxy check-api`, from the plugin's executable): runs the contract
 * check against a server and prints each assumption with what was seen and what the provider does about it.
 *
 * Exit status: 0 when every breaking assumption holds, 1 when a server answered and one differs, 2 when nothing could
 * be checked (bad arguments, no settings, no answer, the key refused, no API at the URL).
 */
import { execFileSync } from "node:child_process";
import { parseArgs } from "node:util";
import { CONFIG_KEYS, ConfigurationError, parseDuration, resolveSettings } from "../provider";
import { anyBreaking, checkApi, nothingChecked, type Finding } from "./assumptions";

/** Where the command writes, and what it reads settings from. */
export interface CommandIo {
  out: (text: string) => void;
  err: (text: string) => void;
  env: NodeJS.ProcessEnv;
  /**
   * Reads one value of the stack's config (`proxy:apiKey`): the value, or why there is none (`{ missing }`).
   * @default `pulumi config get`
   */
  stackConfig?: (key: string, stack: string | undefined) => string | { missing: string };
  /** How the user runs this command, for its usage. @default `pulumi-proxy check-api` */
  command?: string;
}

/** The command's options (parseArgs'); every one is in {@link checkUsage}. */
export const CHECK_OPTIONS = {
  "base-url": { type: "string" },
  buy: { type: "string" },
  json: { type: "boolean", default: false },
  stack: { type: "string" },
  "ready-timeout": { type: "string", default: "20m" },
  help: { type: "boolean", default: false },
} as const;

/** The usage text, naming the command as the user runs it (`pulumi-proxy check-api`, `pulumi-resource-proxy check-api`). */
export function checkUsage(command = "pulumi-proxy check-api"): string {
  return `Usage: ${command} [--base-url URL] [--buy PLAN] [--json] [--stack NAME] [--ready-timeout 20m]

Checks whether a server keeps the API contract this provider assumes (docs/going-live.md), before money moves.

  --base-url URL       the API's base URL, without /v1 (default: the stack's proxy:baseUrl, then PROXY_API_BASE_URL)
  --buy PLAN           also buy PLAN once, replay the purchase and wait until it is ready. THIS SPENDS MONEY: one
                       order, or two if the server ignores Idempotency-Key. The orders stay with the account.
  --json               print the findings as a JSON array of { assumption, holds, breaking, seen, effect }
  --stack NAME         the stack whose config to read (default: the folder's current stack)
  --ready-timeout D    how long --buy waits for the order, such as 20m (default 20m)
  --help               show this text

The settings come from where the provider takes them: the stack's config (read with the pulumi CLI), then the
environment. The API key comes from the stack's proxy:apiKey, then PROXY_API_KEY; it is never printed.
Exit status: 0 every breaking assumption holds; 1 the server answered and one differs; 2 nothing could be checked
(bad arguments, no settings, no answer at the URL, the key refused, no API there).
`;
}

/** The command's flags, as parsed. */
interface CheckFlags {
  "base-url"?: string;
  buy?: string;
  json?: boolean;
  stack?: string;
  "ready-timeout"?: string;
  help?: boolean;
}

/** A failure of the command's own: the text for stderr; the exit status is 2. */
class CommandFailure extends Error {}

/** Runs the command with `args` (after `check-api`); resolves with the exit status. */
export async function runCheckCommand(args: string[], io: CommandIo): Promise<number> {
  let values: CheckFlags;
  let readyTimeoutMs: number;
  let settings: { baseUrl: string; apiKey: string };
  try {
    values = parseFlags(args, io.command);
    if (values.help) {
      io.out(checkUsage(io.command));
      return 0;
    }
    readyTimeoutMs = checkedFlags(values);
    settings = checkSettings(values, io);
  } catch (error) {
    if (!(error instanceof CommandFailure)) throw error;
    io.err(error.message);
    return 2;
  }
  if (!values.json) {
    io.out(`Checking ${settings.baseUrl} against the contract${values.buy ? `, buying plan ${values.buy} once` : " (read-only)"}.\n\n`);
  }
  const findings = await checkApi({
    ...settings,
    buy: values.buy,
    readyTimeoutMs,
    onFinding: values.json ? undefined : (finding) => io.out(formatFinding(finding)),
  });
  io.out(values.json ? `${JSON.stringify(findings, null, 2)}\n` : summary(findings, values.buy !== undefined));
  return nothingChecked(findings) ? 2 : anyBreaking(findings) ? 1 : 0;
}

function parseFlags(args: string[], command: string | undefined): CheckFlags {
  try {
    return parseArgs({ args, options: CHECK_OPTIONS }).values;
  } catch (error) {
    throw new CommandFailure(`check-api: ${error instanceof Error ? error.message : String(error)}\n\n${checkUsage(command)}`);
  }
}

/** The flags' values checked; the ready timeout in milliseconds. */
function checkedFlags(values: CheckFlags): number {
  const readyTimeoutMs = parseDuration(values["ready-timeout"] ?? "20m");
  if (readyTimeoutMs === undefined || readyTimeoutMs < 1000) {
    throw new CommandFailure(`check-api: --ready-timeout must be a duration such as 20m or 1h30m (got "${values["ready-timeout"]}").\n`);
  }
  if (values.buy !== undefined && values.buy.trim() === "") throw new CommandFailure("check-api: --buy needs a plan id, such as --buy dc-us-5.\n");
  return readyTimeoutMs;
}

/** The base URL and key: the flag, then the stack's config, then the environment, as the provider reads them. */
function checkSettings(values: CheckFlags, io: CommandIo): { baseUrl: string; apiKey: string } {
  const stackConfig = io.stackConfig ?? pulumiConfigGet;
  const unread = new Set<string>();
  try {
    // The provider's order, so the check checks what `up` uses.
    const setting = (key: string) => {
      if (key === CONFIG_KEYS.baseUrl.key && values["base-url"] !== undefined) return values["base-url"];
      const fromStack = stackConfig(key, values.stack);
      if (typeof fromStack === "string") return fromStack;
      unread.add(fromStack.missing);
      const env = Object.values(CONFIG_KEYS).find((c) => c.key === key)?.env;
      return env ? io.env[env] : undefined;
    };
    return resolveSettings(setting, {}, { baseUrl: values["base-url"] ? "--base-url" : undefined });
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    const why = [...unread].filter((reason) => reason !== "not set");
    throw new CommandFailure(`check-api: ${error.message}${why.length > 0 ? ` (The stack's config was not read: ${why.join("; ")}.)` : ""}\n`);
  }
}

/** One finding as the report shows it. */
export function formatFinding(finding: Finding): string {
  const mark = finding.holds === true ? "ok     " : finding.holds === null ? "unknown" : finding.breaking ? "BREAKS " : "differs";
  const lines = [`[${mark}] ${finding.assumption}`, `          seen:   ${finding.seen}`];
  if (finding.holds !== true || finding.effect !== "Works.") lines.push(`          effect: ${finding.effect}`);
  return `${lines.join("\n")}\n\n`;
}

function summary(findings: readonly Finding[], bought: boolean): string {
  const count = (test: (f: Finding) => boolean) => findings.filter(test).length;
  const breaking = count((f) => f.breaking && f.holds === false);
  const differs = count((f) => !f.breaking && f.holds === false);
  const unknown = count((f) => f.holds === null);
  if (nothingChecked(findings)) return `Nothing could be checked: ${findings[0]!.effect.replace(/^Nothing was checked: /, "")}\n`;
  const head = breaking > 0
    ? `${breaking} breaking assumption${breaking === 1 ? "" : "s"} differ${breaking === 1 ? "s" : ""}: do not point a stack at this server until ${breaking === 1 ? "it is" : "they are"} fixed.`
    : "Every breaking assumption holds: the provider can work with this server.";
  const rest = `${count((f) => f.holds === true)} hold, ${differs} differ without breaking, ${unknown} could not be checked.`;
  const buy = bought ? "" : " Purchases and idempotent replays were not checked: run again with --buy PLAN (it buys one order).";
  return `${head} ${rest}${buy}\n`;
}

/** Reads the stack's config with the Pulumi CLI: the value, or why there is none. */
function pulumiConfigGet(key: string, stack: string | undefined): string | { missing: string } {
  try {
    const value = execFileSync("pulumi", ["config", "get", key, ...(stack ? ["--stack", stack] : [])], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 30_000,
    });
    return value.replace(/\r?\n$/, "") || { missing: "not set" };
  } catch (error) {
    const { code, stderr } = error as { code?: string; stderr?: string };
    if (code === "ENOENT") return { missing: "the pulumi CLI is not on PATH" };
    if (/configuration key .* not found/i.test(stderr ?? "")) return { missing: "not set" };
    const said = (stderr ?? "").trim().split("\n").pop()?.replace(/^error:\s*/, "");
    return { missing: said ? `pulumi config get said: ${said}` : "pulumi config get failed" };
  }
}
