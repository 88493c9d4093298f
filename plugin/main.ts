/**
 * The entry point of `pulumi-resource-proxy`. The engine starts it with its own gRPC address as the first argument
 * that is not a flag, and reads the port to connect to from the first line of stdout.
 */
import { startPluginServer } from "./server";

async function main(): Promise<void> {
  const engineAddress = process.argv.slice(2).find((arg) => !arg.startsWith("-"));
  const { port } = await startPluginServer(engineAddress === undefined ? {} : { engineAddress });
  process.stdout.write(`${port}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`pulumi-resource-proxy: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
