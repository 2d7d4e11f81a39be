// A promise that knows whether anyone asked for its outcome: `await`, `.then`, `.catch` and `.finally` all
// go through `then`. A transaction uses it to tell a failed operation the caller handled from one it
// dropped (see Transaction.seal).
export class ObservedPromise<T> extends Promise<T> {
  observed = false;

  // Promises derived from this one (by then, catch, finally) are plain: only the one handed out watches.
  static override get [Symbol.species](): PromiseConstructor {
    return Promise;
  }

  /** Follows `p`; `p`'s rejection is handled here, so an unobserved one is no unhandled rejection. */
  static of<T>(p: Promise<T>): ObservedPromise<T> {
    const out = new ObservedPromise<T>((resolve, reject) => p.then(resolve, reject));
    // Bypasses the override below: this handler is not the caller looking.
    Promise.prototype.then.call(out, undefined, () => undefined);
    return out;
  }

  override then<A = T, B = never>(onFulfilled?: ((value: T) => A | PromiseLike<A>) | null, onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<A | B> {
    this.observed = true;
    return super.then(onFulfilled, onRejected);
  }
}
