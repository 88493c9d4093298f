/**
 * The entry point of `pulumi-resource-proxy`. The engine starts it with its own gRPC address as the first argument
 * that is not a flag, and reads the port to connect to from the first line of stdout. `pulumi-resource-proxy
 * check-api ...` runs the contract check instead (check/cli.ts), so users of the plugin alone have it too.
 */
import { runCheckCommand } from "../check";
import { startPluginServer } from "./server";
import { pluginUsage } from "./usage";

async function main(): Promise<void> {
  if (process.argv[2] === "--help" || process.argv[2] === "-h") {
    process.stdout.write(pluginUsage());
    return;
  }
  if (process.argv[2] === "check-api") {
    const io = {
      out: (t: string) => void process.stdout.write(t),
      err: (t: string) => void process.stderr.write(t),
      env: process.env,
      command: "pulumi-resource-proxy check-api",
    };
    process.exitCode = await runCheckCommand(process.argv.slice(3), io);
    return;
  }
  const engineAddress = process.argv.slice(2).find((arg) => !arg.startsWith("-"));
  const { port } = await startPluginServer(engineAddress === undefined ? {} : { engineAddress });
  process.stdout.write(`${port}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`pulumi-resource-proxy: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
