/**
 * The randomness of the retry loop's jitter, in one object, so that tests fix it (`vi.spyOn`). The waits themselves
 * pass on the client's clock (its option `clock`). Not part of the public API.
 */
export const jitter = {
  /** Uniform in [0, 1). */
  random: (): number => Math.random(),
};
