/**
 * What holds the hand-written resource classes to their descriptions (provider/definitions.ts): each class file
 * states that its arguments are the description's inputs, each as a `pulumi.Input` of the input's type, required only
 * where the user must set it; and that its declared outputs are its inputs and outputs, each as a `pulumi.Output` of
 * the state's type for it. An input or output added, renamed or retyped in a description and not in its class fails
 * the type check; the words of their TSDoc are held by test/unit/sdk-docs.test.ts.
 */
import type * as pulumi from "@pulumi/pulumi";

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** The names of the outputs a resource class declares (beyond the `id` and `urn` every resource has). */
type DeclaredOutputs<C> = Exclude<{ [K in keyof C]-?: C[K] extends pulumi.Output<unknown> ? K : never }[keyof C], "id" | "urn">;

/** The outputs a resource class declares, by name, each as the type of its value (`Output<T>` as `T`). */
export type Declared<C> = { [K in DeclaredOutputs<C>]: C[K] extends pulumi.Output<infer T> ? T : never };

/**
 * What a class declares for a state of shape `S`: every property, one the state may leave out as `T | undefined`
 * (mapped over `Required<S>`'s names so that the `undefined` of an optional property stays).
 */
export type DeclaredFor<S> = { [K in keyof Required<S>]: S[K] };

/** The names of the fields of a description that the user must set (those with no `presence`). */
type RequiredNames<F> = { [K in keyof F]: F[K] extends { presence: string } ? never : K }[keyof F];

/**
 * A class's arguments for inputs described by `F` whose values have shape `S`: each a `pulumi.Input`, required only
 * when its description requires it (a defaulted input is filled in by `check`, so the user may leave it out).
 */
export type ArgsFor<F, S> = Simplify<
  { [K in RequiredNames<F> & keyof S]: pulumi.Input<S[K]> } & {
    [K in Exclude<keyof S, RequiredNames<F>>]?: pulumi.Input<Exclude<S[K], undefined>>;
  }
>;

/** The same as `T`, as a plain object type, so that an interface compares equal to the mapped type it spells out. */
export type Plain<T> = Simplify<T>;
