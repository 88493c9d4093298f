/**
 * Drives the real Pulumi CLI for end-to-end tests: an isolated PULUMI_HOME, a local file backend in a temporary
 * folder, a passphrase for secrets, and the offline settings. Every failure throws with the CLI's own output.
 */
import { execFile, execFileSync, spawn } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync, renameSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const REPO_ROOT = resolve(__dirname, "..", "..");

/**
 * This tree packed as npm publishes it, into `destination`: the tarball's path and the files it holds (sorted). No
 * script runs: dist/ stays as `npm test` built it, for the tests running beside the caller.
 */
export function packThisTree(destination: string): { tarball: string; files: string[] } {
  const packed = JSON.parse(
    execFileSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", destination], { cwd: REPO_ROOT, encoding: "utf8" }),
  ) as Array<{ filename: string; files: Array<{ path: string }> }>;
  return { tarball: join(destination, packed[0]?.filename ?? ""), files: (packed[0]?.files ?? []).map((f) => f.path).sort() };
}

/**
 * The type token of a dynamic ProxyOrder as states hold it. Written out rather than imported from the SDK: a change
 * there would replace (buy again) every order, so it must fail these tests.
 */
export const ORDER_TYPE = "pulumi-nodejs:dynamic/proxy:ProxyOrder";

/** What one CLI command printed. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The parts of `--json` output the tests read. */
export interface JsonSummary {
  steps?: Array<{ op: string; urn: string; diffReasons?: string[]; replaceReasons?: string[] }>;
  changeSummary?: Record<string, number>;
  diagnostics?: Array<{ message: string; severity: string; urn?: string }>;
}

/** The pulumi binary: PULUMI_BIN (set by `npm test` from scripts/ensure-pulumi), else the one on PATH. */
export function pulumiBinary(): string {
  return process.env.PULUMI_BIN ?? "pulumi";
}

/** Makes `require("pulumi-proxy")` resolve to this working tree from any folder inside the repository. */
export function linkWorkingTree(): void {
  if (!existsSync(join(REPO_ROOT, "dist", "dynamic-sdk", "index.js"))) {
    throw new Error("dist/ is missing: run `npm run build` (npm test does) before the end-to-end tests.");
  }
  ensureSymlink("..", join(REPO_ROOT, "node_modules", "pulumi-proxy"));
  // The package's bin, as npm would install it for a user.
  ensureSymlink(join("..", "pulumi-proxy", "dist", "sandbox", "cli.js"), join(REPO_ROOT, "node_modules", ".bin", "pulumi-proxy-sandbox"));
  chmodSync(join(REPO_ROOT, "dist", "sandbox", "cli.js"), 0o755);
}

/**
 * Makes `path` a symbolic link to `target`, safely when several test workers do it at once: the link is made under
 * a unique name and renamed into place (atomic), instead of checking and then creating.
 */
export function ensureSymlink(target: string, path: string): void {
  try {
    if (readlinkSync(path) === target) return;
  } catch {
    // Not there, or not a link: make it.
  }
  const temp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  symlinkSync(target, temp);
  renameSync(temp, path);
}

/** A copy of a program folder with its own stack, home and backend. */
export class PulumiProgram {
  readonly dir: string;
  private readonly state: string;
  private readonly ownsState: boolean;
  readonly env: NodeJS.ProcessEnv;
  /** The CLI this program runs; default {@link pulumiBinary}. */
  cli: string | undefined;

  private constructor(programPath: string, readonly stack: string, sharedState?: string, installedDir?: string) {
    if (installedDir) {
      this.dir = installedDir;
    } else {
      linkWorkingTree();
      // Inside the repository, so the program resolves @pulumi/pulumi and pulumi-proxy from its node_modules.
      const scratch = join(REPO_ROOT, ".e2e");
      mkdirSync(scratch, { recursive: true });
      this.dir = mkdtempSync(join(scratch, `${programPath.split("/").pop()}-`));
      cpSync(join(REPO_ROOT, programPath), this.dir, { recursive: true });
    }
    this.ownsState = sharedState === undefined;
    this.state = sharedState ?? mkdtempSync(join(tmpdir(), "pulumi-proxy-e2e-"));
    mkdirSync(join(this.state, "backend"), { recursive: true });
    const { PROXY_API_KEY: _key, PROXY_API_BASE_URL: _url, ...inherited } = process.env;
    this.env = {
      ...inherited,
      // After the rest of PATH: the language hosts installed beside a real CLI come first.
      PATH: [inherited.PATH, process.env.PULUMI_LANGUAGE_HOSTS].filter(Boolean).join(":"),
      PULUMI_HOME: join(this.state, "home"),
      PULUMI_BACKEND_URL: `file://${join(this.state, "backend")}`,
      PULUMI_CONFIG_PASSPHRASE: "e2e-passphrase",
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK: "true",
      NO_COLOR: "1",
    };
  }

  /**
   * Copies the program folder (relative to the repository, such as `examples/quickstart`) and creates the stack.
   * `sameBackendAs` puts the stack in another program's backend, so a StackReference can read it.
   */
  static async create(
    programPath: string,
    stack = "e2e",
    options: { sameBackendAs?: PulumiProgram; installedDir?: string } = {},
  ): Promise<PulumiProgram> {
    const program = new PulumiProgram(programPath, stack, options.sameBackendAs?.state, options.installedDir);
    await program.run(["stack", "init", stack]);
    return program;
  }

  /** Runs the CLI in the program's folder; throws with its output unless `allowFailure`. */
  run(args: string[], options: { allowFailure?: boolean; env?: NodeJS.ProcessEnv } = {}): Promise<CliResult> {
    return new Promise((resolvePromise, reject) => {
      execFile(
        this.cli ?? pulumiBinary(),
        [...args, "--non-interactive"],
        { cwd: this.dir, env: { ...this.env, ...options.env }, maxBuffer: 64 * 1024 * 1024 },
        (error, stdout, stderr) => {
          if (error?.code === "ENOENT") {
            reject(new Error(`No Pulumi CLI at "${pulumiBinary()}": run the tests with \`npm test\` (it runs scripts/ensure-pulumi) or set PULUMI_BIN.`));
            return;
          }
          const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
          const result = { code, stdout, stderr };
          if (code !== 0 && !options.allowFailure) {
            reject(new Error(`pulumi ${args.join(" ")} failed with exit code ${code}\n--- stdout\n${stdout}\n--- stderr\n${stderr}`));
          } else {
            resolvePromise(result);
          }
        },
      );
    });
  }

  /** Points the stack at an API: `proxy:baseUrl`, and `proxy:apiKey` as a secret. */
  async useApi(api: { url: string; apiKey: string }): Promise<void> {
    await this.configAll({ "proxy:baseUrl": api.url }, { "proxy:apiKey": api.apiKey });
  }

  /** Sets several config values in one command (each command pays the CLI's start and the passphrase's key derivation). */
  async configAll(plain: Record<string, string>, secret: Record<string, string> = {}): Promise<void> {
    const pairs = (flag: string, values: Record<string, string>) => Object.entries(values).flatMap(([key, value]) => [flag, `${key}=${value}`]);
    await this.run(["config", "set-all", ...pairs("--plaintext", plain), ...pairs("--secret", secret)]);
  }

  /** Sets a config value; `secret` encrypts it with the passphrase. */
  async config(key: string, value: string, options: { secret?: boolean } = {}): Promise<void> {
    await this.run(["config", "set", key, value, ...(options.secret ? ["--secret"] : ["--plaintext"])]);
  }

  preview(...extra: string[]): Promise<JsonSummary & CliResult> {
    return this.json(["preview", ...extra]);
  }

  up(...extra: string[]): Promise<JsonSummary & CliResult> {
    return this.json(["up", "--yes", "--skip-preview", ...extra]);
  }

  refresh(...extra: string[]): Promise<JsonSummary & CliResult> {
    return this.json(["refresh", "--yes", "--skip-preview", ...extra]);
  }

  destroy(...extra: string[]): Promise<JsonSummary & CliResult> {
    return this.json(["destroy", "--yes", "--skip-preview", ...extra]);
  }

  /**
   * Runs `pulumi up` and presses Ctrl-C once (SIGINT to the CLI alone, as a terminal does: the CLI starts its plugins
   * in process groups of their own) when `ready()` first holds, asked every 100 ms; resolves with its exit code and
   * what it printed.
   */
  async upInterrupted(ready: () => boolean): Promise<{ code: number | null; printed: string }> {
    const child = spawn(this.cli ?? pulumiBinary(), ["up", "--yes", "--skip-preview", "--non-interactive"], { cwd: this.dir, env: this.env });
    let printed = "";
    child.stdout.on("data", (chunk: Buffer) => (printed += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (printed += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    while (!ready()) await new Promise((resolve) => setTimeout(resolve, 100));
    child.kill("SIGINT");
    return { code: await exited, printed };
  }

  /**
   * Runs `pulumi up` in its own process group and kills the whole group with SIGKILL once `killWhen` settles (unless
   * it ended first); resolves with what it printed.
   */
  upKilled(killWhen: Promise<unknown>): Promise<string> {
    return new Promise((resolvePromise) => {
      const child = spawn(this.cli ?? pulumiBinary(), ["up", "--yes", "--skip-preview", "--non-interactive"], {
        cwd: this.dir,
        env: this.env,
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      let ended = false;
      child.stdout.on("data", (d: Buffer) => (out += d.toString()));
      child.stderr.on("data", (d: Buffer) => (out += d.toString()));
      const kill = () => {
        if (ended) return;
        try {
          process.kill(-(child.pid ?? 0), "SIGKILL");
        } catch {
          // It ended on its own first.
        }
      };
      killWhen.then(kill, kill);
      child.on("close", () => {
        ended = true;
        this.killLeftovers();
        resolvePromise(out);
      });
    });
  }

  /**
   * Kills what a killed CLI leaves running in the program's folder: the engine starts its plugins (the dynamic
   * provider, the plugin, the language host) in process groups of their own, which the CLI's SIGKILL does not reach.
   */
  private killLeftovers(): void {
    for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
      try {
        if (readlinkSync(`/proc/${pid}/cwd`) === this.dir) process.kill(Number(pid), "SIGKILL");
      } catch {
        // Gone already, or not ours to read.
      }
    }
  }

  /** Stack outputs; secrets stay `[secret]` unless asked for. */
  async outputs(options: { showSecrets?: boolean } = {}): Promise<Record<string, unknown>> {
    const { stdout } = await this.run(["stack", "output", "--json", ...(options.showSecrets ? ["--show-secrets"] : [])]);
    return JSON.parse(stdout) as Record<string, unknown>;
  }

  /** The exported state, as text (to search) and parsed. */
  async exportState(): Promise<{ text: string; resources: Array<{ type: string; urn: string; id?: string; inputs?: Record<string, unknown>; outputs?: Record<string, unknown> }> }> {
    const { stdout } = await this.run(["stack", "export"]);
    const parsed = JSON.parse(stdout) as { deployment: { resources?: [] } };
    return { text: stdout, resources: parsed.deployment.resources ?? [] };
  }

  /** Removes the copy (not an installed program's folder) and the state. */
  cleanup(): void {
    if (this.dir.startsWith(join(REPO_ROOT, ".e2e"))) rmSync(this.dir, { recursive: true, force: true });
    if (this.ownsState) {
      rmSync(this.state, { recursive: true, force: true });
    }
  }

  private async json(args: string[]): Promise<JsonSummary & CliResult> {
    const result = await this.run([...args, "--json"], { allowFailure: true });
    const summary = parseJsonOutput(result.stdout);
    if (result.code !== 0) {
      // The event stream is unreadable as text: report what the CLI said, decoded.
      const said = (summary.diagnostics ?? []).map((d) => `${d.severity}: ${d.message.trim()}`).join("\n");
      throw new Error(`pulumi ${args.join(" ")} failed with exit code ${result.code}\n--- diagnostics\n${said}\n--- stderr\n${result.stderr}`);
    }
    return { ...summary, ...result };
  }
}

/** One engine event of `up`, `refresh` or `destroy --json` (a JSON object per line). */
interface EngineEvent {
  resourcePreEvent?: { metadata: { op: string; urn: string; diffs?: string[]; keys?: string[] } };
  diagnosticEvent?: { message: string; severity: string; urn?: string };
  summaryEvent?: { resourceChanges?: Record<string, number> };
}

/** Reads preview's single JSON document, or the event stream of the other commands, into one summary. */
export function parseJsonOutput(stdout: string): JsonSummary {
  try {
    return JSON.parse(stdout) as JsonSummary;
  } catch {
    // An event stream: fall through.
  }
  const summary: JsonSummary = { steps: [], diagnostics: [] };
  for (const line of stdout.split("\n")) {
    if (!line.trim().startsWith("{")) continue;
    const event = JSON.parse(line) as EngineEvent;
    if (event.resourcePreEvent) {
      const { op, urn, diffs, keys } = event.resourcePreEvent.metadata;
      summary.steps?.push({ op, urn, diffReasons: diffs, replaceReasons: keys });
    }
    if (event.diagnosticEvent && event.diagnosticEvent.severity !== "debug") {
      summary.diagnostics?.push(event.diagnosticEvent);
    }
    if (event.summaryEvent) {
      summary.changeSummary = event.summaryEvent.resourceChanges ?? {};
    }
  }
  return summary;
}
