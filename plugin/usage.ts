/**
 * What `pulumi-resource-proxy --help` prints: the executable's commands, the engine's way of starting it first.
 */

/** The commands of the plugin's executable, each with what it does. */
export const PLUGIN_COMMANDS = {
  "": "[<engine address>]   the provider plugin, as the Pulumi engine starts it (it prints its port, then serves gRPC)",
  "check-api": "[options]   check a server against the API contract before money moves (check-api --help)",
  sandbox: "[options]   the local sandbox API, in the released executable (sandbox --help; from npm: pulumi-proxy-sandbox)",
} as const;

/** The usage text. */
export function pluginUsage(): string {
  const lines = Object.entries(PLUGIN_COMMANDS).map(([command, what]) => `  pulumi-resource-proxy ${command ? `${command} ` : ""}${what}`);
  return `Usage:\n${lines.join("\n")}\n  pulumi-resource-proxy --help   show this text\n\nThe provider plugin \`proxy\` (docs/languages.md).\n`;
}
