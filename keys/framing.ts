// One framing for every stored byte string: index values, log entries and checkpoint objects. A frame is a
// format byte, then the MessagePack payload. Format 1 is the only one written so far; the byte is there so
// that a later format (one carrying a checksum of its payload, DESIGN §3) can be read beside it, and so that
// bytes that are not a frame of ours are refused before anything is decoded.
import { Packr } from 'msgpackr';

export const FRAME_V1 = 1;

// Plain maps rather than msgpackr records: records need their structure table shared between processes,
// which would couple every reader of the log to the writer's session. `variableMapSize` only shortens map
// headers; every reader decodes both sizes.
const packr = new Packr({ useRecords: false, mapsAsObjects: true, variableMapSize: true });

/** Bytes that are not a frame this version can read; the caller names the object or key. */
export class FrameError extends Error {}

export function frame(value: unknown): Uint8Array {
  const body = packr.pack(value);
  const out = new Uint8Array(body.length + 1);
  out[0] = FRAME_V1;
  out.set(body, 1);
  return out;
}

/** The frame's payload, decoded; a FrameError when the bytes are not a frame of a known format. */
export function unframe(bytes: Uint8Array): unknown {
  if (bytes.length < 2) throw new FrameError(`${bytes.length} bytes is too short for a frame`);
  if (bytes[0] !== FRAME_V1) throw new FrameError(`unknown format ${bytes[0]}`);
  try {
    return packr.unpack(bytes.subarray(1));
  } catch (e) {
    throw new FrameError((e as Error).message);
  }
}

/** A decoded payload that must be a plain record (what every stored value and entry is). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype;
}
