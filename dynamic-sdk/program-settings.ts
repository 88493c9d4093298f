/**
 * The `proxy:*` settings as the program's own process reads them: the stack's config, then the environment, as the
 * provider's process does. A problem with them is said in full once per program, as the stack's error, whether a
 * resource or a function meets it first; each resource's check then says only its first sentence
 * (ProviderOptions.settingsToldByProgram), so one preview prints the fix once, not once per resource.
 */
import * as pulumi from "@pulumi/pulumi";
import { MockMonitor } from "@pulumi/pulumi/runtime/mocks";
import { ConfigurationError, misspeltSettings, type ProviderSettings, resolveSettings, toldByProgram } from "../provider";

/** The problem this process has said in full, if any. */
let said: string | undefined;

/** Whether the program runs under `pulumi.runtime.setMocks` (users' unit tests, which need no settings). */
export function underMocks(): boolean {
  return pulumi.runtime.getMonitor() instanceof MockMonitor;
}

/** The settings; a problem with them throws its ConfigurationError, in full the first time this process meets it. */
export function programSettings(): ProviderSettings {
  // runtime.getConfig reads secrets without the plain-text warning of Config.get; the key stays in memory only.
  const misspelt = misspeltSettings(Object.keys(pulumi.runtime.allConfig()));
  try {
    return resolveSettings((key) => pulumi.runtime.getConfig(key), process.env, { misspelt });
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    if (said === error.message) throw new ConfigurationError(toldByProgram(error.message));
    said ??= error.message;
    throw error;
  }
}

/**
 * Says a problem with the settings as the stack's error, once per program, and whether there is one (never under
 * mocks). A resource calls it when it is made, and a function's Output form before it calls the API.
 */
export function tellSettingsProblem(): boolean {
  if (underMocks()) return false;
  if (said !== undefined) return true;
  try {
    programSettings();
    return false;
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    void pulumi.log.error(error.message);
    return true;
  }
}
