#!/usr/bin/env node
/**
 * `pulumi-proxy`: the package's command line. One command today, `check-api` (check/cli.ts).
 */
import { checkUsage, runCheckCommand } from "./cli";

const [command, ...rest] = process.argv.slice(2);
if (command === "check-api") {
  runCheckCommand(rest, { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t), env: process.env }).then(
    (status) => {
      process.exitCode = status;
    },
    (error: unknown) => {
      process.stderr.write(`pulumi-proxy check-api: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 2;
    },
  );
} else if (command === undefined || command === "--help" || command === "-h") {
  process.stdout.write(checkUsage());
} else {
  process.stderr.write(`pulumi-proxy: unknown command "${command}"\n\n${checkUsage()}`);
  process.exitCode = 2;
}
