/**
 * What holds the hand-written resource classes to their descriptions (provider/definitions.ts): each class file
 * states that its arguments are the description's inputs and its declared outputs are its inputs and outputs, so an
 * input or output added to a description and not here fails the type check.
 */
import type * as pulumi from "@pulumi/pulumi";

/** The names of the outputs a resource class declares (beyond the `id` and `urn` every resource has). */
export type DeclaredOutputs<C> = Exclude<{ [K in keyof C]-?: C[K] extends pulumi.Output<unknown> ? K : never }[keyof C], "id" | "urn">;
