/**
 * How the functions reach the API from the program's own process (dynamic providers have no invokes), and how they
 * behave under Pulumi's unit-test mocks and with `dependsOn`.
 */
import * as pulumi from "@pulumi/pulumi";
import { type ProxyApiClient, withoutUndefined } from "../client";
import { processAccounts } from "../provider";
import { callLog } from "../tracing";
import { programSettings, tellSettingsProblem, underMocks } from "./program-settings";

/** Options of the Output forms, as Pulumi's own `getXOutput` functions take them. */
export interface FunctionOutputOptions {
  /**
   * Resources to wait for before calling the API: the call is made once each of them exists (its `id` is known), so
   * the result reflects them. During a preview where one of them is still to be created, the result is unknown.
   */
  dependsOn?: pulumi.Input<pulumi.Input<pulumi.Resource>[]> | pulumi.Input<pulumi.Resource>;
}

/**
 * The client of the program's account (provider/api/account.ts), configured from the `proxy:*` config or the
 * environment (program-settings.ts). Its calls go to Pulumi's debug log (`pulumi up --debug`).
 */
export function programClient(): ProxyApiClient {
  return processAccounts.of({ ...programSettings(), tracer: callLog((line) => void pulumi.log.debug(line)) }, pulumi.log).api;
}

/**
 * Runs a function: against the API, or, under `pulumi.runtime.setMocks`, through the mocks' `call` with the token
 * `proxy:index:<name>`, so unit tests of a program control the result without an API or any configuration.
 */
export async function callFunction<R>(token: string, args: Record<string, unknown>, call: () => Promise<R>): Promise<R> {
  if (underMocks()) {
    return (await pulumi.runtime.invoke(token, withoutUndefined(args))) as R;
  }
  return call();
}

/** An Output that resolves once every resource in `dependsOn` exists; `undefined` without dependencies. */
export function dependencies(options: FunctionOutputOptions = {}): pulumi.Output<unknown> {
  if (options.dependsOn === undefined) return pulumi.output(undefined);
  return pulumi.output(options.dependsOn).apply((deps) => {
    const list = Array.isArray(deps) ? deps : [deps];
    return pulumi.all(list.map((r) => (pulumi.CustomResource.isInstance(r) ? r.id : r.urn)));
  });
}

/**
 * A function's call inside its Output form's apply. With a problem in the settings, said once as the stack's error
 * (program-settings.ts), the result is unknown instead: the run fails on that error already, and a rejected apply
 * would print the same error again and hold the program's end (Pulumi's Node runtime took about 17 s more to end a
 * preview with one, CLI 3.274.1, and printed PromiseRejectionHandledWarning).
 */
export function outputCall<R>(call: () => Promise<R>): Promise<R> {
  return tellSettingsProblem() ? Promise.resolve(pulumi.unknown as unknown as R) : call();
}
