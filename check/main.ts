#!/usr/bin/env node
/**
 * `pulumi-proxy`: the package's command line. One command today, `check-api` (check/cli.ts).
 */
import { CHECK_USAGE, runCheckCommand } from "./cli";

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
} else {
  process.stderr.write(`Usage: pulumi-proxy check-api [options]\n\n${CHECK_USAGE}`);
  process.exitCode = command === undefined || command === "--help" ? 0 : 2;
}
