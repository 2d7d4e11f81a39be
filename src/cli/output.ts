// Standard output. Results that stream: each write waits while the reader is behind (memory stays flat
// however much is printed), and a reader that went away (`strata sql … | head`, EPIPE) stops the command,
// which then closes its catalog and ends quietly. A command's one text (say): written to the descriptor
// itself, since making process.stdout (a stream over the pipe or terminal) costs ~4 ms of a call.
import { writeSync } from 'node:fs';

/** The reader of standard output is gone: the command stops, and it is no failure. */
export class OutputClosed extends Error {
  constructor() {
    super('standard output was closed');
  }
}

let closed = false;
let stream: NodeJS.WriteStream | undefined;

/** process.stdout, made on first need; from then on every write goes through it, so none overtakes another. */
function stdout(): NodeJS.WriteStream {
  if (stream === undefined) {
    stream = process.stdout;
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EPIPE') throw e;
      closed = true;
    });
  }
  return stream;
}

export async function write(text: string): Promise<void> {
  if (closed) throw new OutputClosed();
  const out = stdout();
  if (out.write(text)) return;
  await new Promise<void>((resolve, reject) => {
    const done = () => {
      out.off('drain', done);
      out.off('error', done);
      if (closed) reject(new OutputClosed());
      else resolve();
    };
    out.on('drain', done);
    out.on('error', done);
  });
}

/**
 * `text` written, or queued in order on process.stdout, before this returns. A reader that went away is told
 * nothing more, as console.log would. An output that cannot take the bytes now (a descriptor made
 * non-blocking: with `2>&1` it is stderr's too, which Node makes non-blocking once it writes there) gets the
 * rest through process.stdout, which waits for it — and so does every text after it.
 */
export function writeNow(text: string): void {
  if (closed) return;
  if (stream !== undefined) {
    stream.write(text);
    return;
  }
  const bytes = Buffer.from(text);
  for (let at = 0; at < bytes.length && !closed; ) {
    try {
      at += writeSync(1, bytes, at);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EPIPE') closed = true;
      else if (code === 'EAGAIN') {
        stdout().write(bytes.subarray(at));
        return;
      } else throw e;
    }
  }
}
