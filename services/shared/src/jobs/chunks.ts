/**
 * Arguments per Redis command built from a list whose length content decides (ids, routes, refs).
 * A spread of an unbounded list into a call (`redis.sadd(key, ...ids)`) throws RangeError past about
 * 100,000 elements, and one huge command blocks Redis for everyone while it runs.
 */
export const ARGS_CHUNK = 1_000;

/** `list` in consecutive slices of at most `size`. */
export function* chunksOf<T>(list: readonly T[], size = ARGS_CHUNK): Generator<T[]> {
  for (let i = 0; i < list.length; i += size) yield list.slice(i, i + size);
}
