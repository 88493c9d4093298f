/**
 * The vocabulary resources and functions are described in (definitions.ts), and what is derived from a description:
 * the TypeScript shape of its properties, its output and secret names, its input checks and changed inputs. The
 * plugin's schema is derived from the same descriptions (plugin/schema-build.ts).
 *
 * A field's `type` is a name: a scalar, an object type of definitions.ts, or either followed by `[]` for a list. The
 * name carries both the schema type and the TypeScript type, so the two cannot drift apart.
 */

/** Scalars, by the name a field uses, and their TypeScript types. */
export interface ScalarTypes {
  string: string;
  boolean: boolean;
  integer: number;
  number: number;
}

/**
 * How a field is present. `required`: the user sets it (inputs), or it is always there (outputs). `defaulted`: an
 * input the user may leave out, which `check` fills in. `optional`: may be absent. `nullable`: an output that is null
 * when not known. Only `required` and `defaulted` fields are required in the schema's outputs.
 */
export type Presence = "required" | "defaulted" | "optional" | "nullable";

/** A check of one input value, reported in the check's own words (zod schemas are such checks). */
export interface InputCheck {
  safeParse(value: unknown): { success: boolean; error?: { issues: ReadonlyArray<{ message: string }> } };
}

/** One property of a resource, a function or an object type. `T` is the names of the object types it may use. */
export interface FieldSpec<T extends string = string> {
  readonly type: T | `${T}[]` | keyof ScalarTypes | `${keyof ScalarTypes}[]`;
  readonly description: string;
  /** @default "required" */
  readonly presence?: Presence;
  /** The value `check` fills in when the input is left out (shown in the schema). */
  readonly default?: string | boolean | number;
  /** Always a secret (Pulumi encrypts it in the state and masks it in outputs). */
  readonly secret?: boolean;
  /** A change of this input replaces the resource. */
  readonly replaces?: boolean;
  /** The input's check, whose message names the property and what is allowed. Unknown values (preview) pass. */
  readonly check?: InputCheck;
}

/** Properties by name. */
export type Fields<T extends string = string> = Readonly<Record<string, FieldSpec<T>>>;

/** A resource: its type token, what it does, its inputs (echoed among its outputs) and its outputs only. */
export interface ResourceSpec<T extends string = string> {
  readonly token: string;
  readonly description: string;
  /** How `pulumi import` tracks existing ones: the plugin's alone (dynamic resources cannot be imported). */
  readonly importing: string;
  readonly inputs: Fields<T>;
  readonly outputs: Fields<T>;
}

/** A function (an invoke): its token, what it does, its arguments and its result. */
export interface FunctionSpec<T extends string = string> {
  readonly token: string;
  readonly description: string;
  readonly inputs?: Fields<T>;
  readonly outputs: Fields<T>;
}

/** An object type: its schema token, what it is, its properties. */
export interface ObjectTypeSpec<T extends string = string> {
  readonly token: string;
  readonly description: string;
  readonly properties: Fields<T>;
}

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** The TypeScript type a field's `type` names, given the TypeScript types of the object types (`O`). */
export type TypeOfName<N, O> = N extends `${infer E}[]`
  ? TypeOfName<E, O>[]
  : N extends keyof ScalarTypes
    ? ScalarTypes[N]
    : N extends keyof O
      ? O[N]
      : never;

type OptionalKeys<F> = { [K in keyof F]: F[K] extends { presence: "optional" } ? K : never }[keyof F];
type NullableKeys<F> = { [K in keyof F]: F[K] extends { presence: "nullable" } ? K : never }[keyof F];
type FieldType<S, O> = S extends { type: infer N } ? TypeOfName<N, O> : never;

/** The TypeScript shape of properties `F`, given the object types' TypeScript types `O`. */
export type ShapeOf<F, O> = Simplify<
  { [K in Exclude<keyof F, OptionalKeys<F> | NullableKeys<F>>]: FieldType<F[K], O> } & {
    [K in OptionalKeys<F>]?: FieldType<F[K], O>;
  } & { [K in NullableKeys<F>]: FieldType<F[K], O> | null }
>;

// The record-listing and sameness checks, whose home is the contract (the sandbox uses them too).
export type { Complete, Same } from "../../contract";

/** Names of the fields of `fields` that are secrets. */
export function secretNames(fields: Fields): string[] {
  return Object.entries(fields)
    .filter(([, spec]) => spec.secret === true)
    .map(([name]) => name);
}

/**
 * The resource's inputs among `values` (inputs, or stored outputs, which echo them): every input of the description,
 * an unset optional one (undefined, or null as older states store it) left out. The state's echo of the inputs and a
 * refresh's inputs are this, so an input added to a description is echoed without another list to keep.
 */
export function inputValues(resource: ResourceSpec, values: object): Record<string, unknown> {
  const all = values as Record<string, unknown>;
  return Object.fromEntries(Object.keys(resource.inputs).flatMap((name) => (all[name] === undefined || all[name] === null ? [] : [[name, all[name]]])));
}

/** Names of the resource's inputs whose change replaces it. */
export function replacingInputs(resource: ResourceSpec): string[] {
  return Object.entries(resource.inputs)
    .filter(([, spec]) => spec.replaces === true)
    .map(([name]) => name);
}

/**
 * The inputs, other than those that replace, whose value differs between the stored outputs and the new inputs; an
 * unset value equals null (older states store null for an unset optional input), and objects are compared by value.
 */
export function changedInputs(resource: ResourceSpec, olds: object, news: object): string[] {
  const value = (props: object, name: string) => canonical((props as Record<string, unknown>)[name] ?? null);
  return Object.entries(resource.inputs)
    .filter(([name, spec]) => spec.replaces !== true && value(news, name) !== value(olds, name))
    .map(([name]) => name);
}

/** A value as comparable text: objects with their keys sorted and their unset fields left out. */
function canonical(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  const sorted = (v: unknown): unknown =>
    typeof v !== "object" || v === null
      ? v
      : Array.isArray(v)
        ? v.map(sorted)
        : Object.fromEntries(Object.entries(v).filter(([, x]) => x !== undefined && x !== null).sort(([a], [b]) => a.localeCompare(b)).map(([k, x]) => [k, sorted(x)]));
  return JSON.stringify(sorted(value));
}

/** One failure per input whose check refuses its value, in the order of the definition; `skip` values pass. */
export function checkFields(fields: Fields, values: object, skip: unknown): Array<{ property: string; reason: string }> {
  const failures: Array<{ property: string; reason: string }> = [];
  for (const [property, spec] of Object.entries(fields)) {
    const value = (values as Record<string, unknown>)[property];
    if (value === skip || !spec.check) continue;
    const result = spec.check.safeParse(value);
    if (!result.success) failures.push({ property, reason: result.error?.issues[0]?.message ?? `${property} is not valid.` });
  }
  return failures;
}

/** The values with every unset field that has a default set to it; unknown values stay as the engine sent them. */
export function withDefaults<T extends object>(fields: Fields, values: T): T {
  const filled = Object.entries(fields)
    .filter(([, spec]) => spec.default !== undefined)
    .map(([name, spec]) => [name, (values as Record<string, unknown>)[name] ?? spec.default]);
  return { ...values, ...Object.fromEntries(filled) };
}
