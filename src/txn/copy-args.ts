// The copy of an operation's arguments a transaction records for replay, taken when the operation is
// called, so that a caller changing an object after passing it changes nothing a lost race replays.

const NOT_PLAIN = Symbol('not plain data');
// Deeper than any argument the API takes; past it a value is left to structuredClone (a cycle, most likely).
const MAX_DEPTH = 32;

/**
 * Plain data — what the API takes: primitives, arrays, objects of Object's prototype — is copied directly,
 * at a fraction of structuredClone's cost (which serializes and deserializes: 3.3–3.5 µs for an
 * addDataFile's arguments against ~0.5, a tenth of a bulk commit's time per file). Anything else (a Date, a typed array, a class instance, a cycle) goes
 * through structuredClone as before; what it cannot copy either (a function) is recorded as passed, and
 * fails the operation's validation, so it is never replayed.
 */
export function copyArgs(args: unknown[]): unknown[] {
  try {
    return copyPlain(args, 0) as unknown[];
  } catch (e) {
    if (e !== NOT_PLAIN) throw e;
  }
  try {
    return structuredClone(args) as unknown[];
  } catch {
    return args;
  }
}

function copyPlain(v: unknown, depth: number): unknown {
  if (typeof v === 'function' || typeof v === 'symbol') throw NOT_PLAIN;
  if (typeof v !== 'object' || v === null) return v;
  if (depth > MAX_DEPTH) throw NOT_PLAIN;
  const proto: unknown = Object.getPrototypeOf(v);
  if (Array.isArray(v)) {
    if (proto !== Array.prototype) throw NOT_PLAIN;
    const out: unknown[] = new Array(v.length);
    for (let i = 0; i < v.length; i++) {
      // A hole stays a hole, as structuredClone keeps it.
      if (i in v) out[i] = copyPlain(v[i], depth + 1);
    }
    return out;
  }
  if (proto !== Object.prototype) throw NOT_PLAIN;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) {
    // Assigning it would set the copy's prototype instead of an own property.
    if (k === '__proto__') throw NOT_PLAIN;
    out[k] = copyPlain((v as Record<string, unknown>)[k], depth + 1);
  }
  return out;
}
