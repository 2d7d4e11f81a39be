// The one MessagePack codec every stored byte string goes through (framing.ts), with text that reads back as
// it was written. Without its native extractor (a platform it has no build for,
// MSGPACKR_NATIVE_ACCELERATION_DISABLED) msgpackr decodes a string of over 64 bytes with the `new
// TextDecoder()` it made when it loaded, which drops a leading U+FEFF: a commit message, a view's SQL or a
// default opening with one came back without it. That decoder is private to msgpackr's module, so where the
// codec as loaded drops the mark, a copy of msgpackr of this codec's own is loaded while `TextDecoder` keeps
// marks by default; the command's bundle is built with that decoder (src/cli/bundle.mjs) and needs no copy.
import { Packr, type Options } from 'msgpackr';
import { createRequire } from 'node:module';

// Plain maps rather than msgpackr records: records need their structure table shared between processes,
// which would couple every reader of the log to the writer's session. `variableMapSize` only shortens map
// headers; every reader decodes both sizes.
const OPTIONS: Options = { useRecords: false, mapsAsObjects: true, variableMapSize: true };

/** Text of over 64 UTF-8 bytes opening with the mark: what the dropping decoder changes. */
const MARKED = `\uFEFF${'m'.repeat(64)}`;

const keepsMarks = (p: Packr) => p.unpack(p.pack(MARKED)) === MARKED;

/**
 * A copy of msgpackr's CommonJS build, loaded with its decoder keeping marks. It is loaded afresh even if the
 * host required msgpackr already (that copy made its decoder the default way); the host keeps its own.
 */
function copyKeepingMarks(): typeof import('msgpackr') {
  const load = createRequire(import.meta.url);
  const entry = load.resolve('msgpackr');
  const hosts = load.cache[entry];
  delete load.cache[entry];
  const Dropping = globalThis.TextDecoder;
  globalThis.TextDecoder = class extends Dropping {
    constructor(label?: string, options?: ConstructorParameters<typeof Dropping>[1]) {
      super(label, { ...options, ignoreBOM: true });
    }
  };
  try {
    return load(entry) as typeof import('msgpackr');
  } finally {
    globalThis.TextDecoder = Dropping;
    if (hosts !== undefined) load.cache[entry] = hosts;
  }
}

function codec(): Packr {
  const loaded = new Packr(OPTIONS);
  if (keepsMarks(loaded)) return loaded;
  const copy = new (copyKeepingMarks().Packr)(OPTIONS);
  // Refusing to start is better than changing what is stored: a msgpackr that decodes text another way.
  if (!keepsMarks(copy)) throw new Error('msgpackr drops a leading U+FEFF from text it decodes, even loaded with a decoder that keeps it');
  return copy;
}

export const packr = codec();
