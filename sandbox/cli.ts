#!/usr/bin/env node
/**
 * `pulumi-proxy-sandbox` (and `npm run sandbox`): runs the local sandbox API until interrupted.
 */
import { parseArgs } from "node:util";
import { OPTIONS, optionsOf, USAGE } from "./cli-options";
import { SANDBOX_API_KEY } from "./sandbox";
import { startSandbox } from "./server";

async function main(): Promise<void> {
  const { values } = parseArgs({ options: OPTIONS });
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  const sandbox = await startSandbox(optionsOf(values));
  // The first line is the URL alone, so scripts can read it.
  process.stdout.write(`${sandbox.url}\n`);
  process.stderr.write(
    `sandbox: listening on ${sandbox.url} (API key: ${values["api-key"] === SANDBOX_API_KEY ? "the default sandbox key" : "as given"})\n` +
      `sandbox: try  pulumi config set proxy:baseUrl ${sandbox.url}\n` +
      (sandbox.proxies ? `sandbox: proxies served on 127.0.0.1; echo target ${sandbox.proxies.echoUrl}\n` : ""),
  );
  const stop = (): void => {
    void sandbox.stop().then(() => process.exit(0));
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`sandbox: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
