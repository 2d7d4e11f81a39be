// Work over many items against a store or a disk, a bounded number at a time: enough in flight to hide each
// request's round trip, few enough to bound the connections, descriptors and memory one call holds.

/**
 * Runs `each` over `items`, `width` at a time. After a failure no item starts; every one under way ends
 * before the first failure is thrown, so nothing is left running behind the caller.
 */
export async function inParallel<T>(items: readonly T[], width: number, each: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const lane = async () => {
    while (failure === undefined && next < items.length) {
      const i = next++;
      try {
        await each(items[i]!, i);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, lane));
  if (failure !== undefined) throw failure.error;
}
