/**
 * Two type checks the contract's modules and the layers above it share: a record with every field listed, and the
 * sameness of two types. Types only.
 */

/**
 * `T` with every property listed: an optional one as `T[K] | undefined`, but present. What writes a record returns
 * this (the sandbox's views, the provider's outputs), so a field added to its type and not written fails the type
 * check instead of staying unset.
 */
export type Complete<T> = { [K in keyof Required<T>]: T[K] };

/** True when `A` and `B` are the same type, both ways. */
export type Same<A, B> = (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? true : false;
