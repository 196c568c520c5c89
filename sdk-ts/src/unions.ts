/**
 * Types for the contract's union constraints, which the generated schema types use.
 *
 * `ExactlyOne<T, K>`: exactly one of the members `K` of `T` is set, the others are absent (a `oneOf` of
 * required-only branches, e.g. `TaskType`: one of `grant`, `revoke`, ...). `AtMostOneNonNull<T, K>`: at most one
 * of the members `K` holds a value other than `null` (e.g. `TaskTypeAction`'s targets).
 */

/** `T` with exactly one of the members `K` present (and the others absent). */
export type ExactlyOne<T, K extends keyof T> = Omit<T, K> &
  {
    [P in K]: { [Q in P]-?: Exclude<T[Q], undefined> } & { [Q in Exclude<K, P>]?: never };
  }[K];

/** `T` with at most one of the members `K` holding a value other than `null`. */
export type AtMostOneNonNull<T, K extends keyof T> = Omit<T, K> &
  (
    | { [P in K]: Pick<T, P> & { [Q in Exclude<K, P>]?: null } }[K]
    | { [P in K]?: null }
  );
