/**
 * What a resource class of the dynamic SDK does when constructed, written once for the generated classes
 * (dynamic-sdk/proxy-order.ts, dynamic-sdk/proxy-fleet.ts, made by scripts/lib/dynamic-sdk.mjs), and the types that
 * hold the classes to the state they declare.
 */
import * as pulumi from "@pulumi/pulumi";
import { PROVIDER_KEY, purchaseKey, type ResourceSpec, secretNames } from "../provider";
import { tellSettingsProblem } from "./program-settings";

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** The names of the outputs a resource class declares (beyond the `id` and `urn` every resource has). */
type DeclaredOutputs<C> = Exclude<{ [K in keyof C]-?: C[K] extends pulumi.Output<unknown> ? K : never }[keyof C], "id" | "urn">;

/** The outputs a resource class declares, by name, each as the type of its value (`Output<T>` as `T`). */
export type Declared<C> = { [K in DeclaredOutputs<C>]: C[K] extends pulumi.Output<infer T> ? T : never };

/** The same as `T`, as a plain object type, so that an interface compares equal to the mapped type it spells out. */
export type Plain<T> = Simplify<T>;

/** Arguments every resource of this package takes: its plan and, optionally, the key its purchases derive from. */
interface KeyedArgs {
  planId: pulumi.Input<string>;
  idempotencyKey?: pulumi.Input<string>;
}

/** `given`, or the key derived for the resource `name` once its plan is known (the plugin derives it from the URN). */
export function resourceKey(name: string, planId: pulumi.Input<string>, given: pulumi.Input<string> | undefined): pulumi.Input<string> {
  return given ?? pulumi.output(planId).apply((plan) => purchaseKey({ project: pulumi.getProject(), stack: pulumi.getStack(), resourceName: name, planId: plan }));
}

/**
 * The properties and options a resource of `spec` is registered with: every input as given (check fills in the
 * defaults), every output undefined so that the engine returns it (pulumi/pulumi#2931), the stored provider, the key
 * derived when none is given, and the description's secrets marked. What `pulumi.dynamic.Resource` does, with a
 * provider written by hand instead of serialized (provider/shared/pulumi-host.ts). A problem with the settings is
 * said here, once per program (program-settings.ts).
 */
export function constructed(
  spec: ResourceSpec,
  serializedProvider: string,
  name: string,
  args: KeyedArgs,
  opts: pulumi.CustomResourceOptions | undefined,
): [pulumi.Inputs, pulumi.CustomResourceOptions] {
  tellSettingsProblem();
  const given = args as unknown as Record<string, unknown>;
  const inputs = Object.fromEntries(Object.keys(spec.inputs).map((key) => [key, given[key]]));
  const outputs = Object.fromEntries(Object.keys(spec.outputs).map((key) => [key, undefined]));
  const props = { [PROVIDER_KEY]: serializedProvider, ...outputs, ...inputs, idempotencyKey: resourceKey(name, args.planId, args.idempotencyKey) };
  return [props, { ...opts, additionalSecretOutputs: [...(opts?.additionalSecretOutputs ?? []), ...secretNames(spec.outputs)] }];
}
