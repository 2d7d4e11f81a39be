// Standard output for results that stream: each write waits while the reader is behind (memory stays flat
// however much is printed), and a reader that went away (`strata sql … | head`, EPIPE) stops the command,
// which then closes its catalog and ends quietly.

/** The reader of standard output is gone: the command stops, and it is no failure. */
export class OutputClosed extends Error {
  constructor() {
    super('standard output was closed');
  }
}

let closed = false;
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code !== 'EPIPE') throw e;
  closed = true;
});

export async function write(text: string): Promise<void> {
  if (closed) throw new OutputClosed();
  if (process.stdout.write(text)) return;
  await new Promise<void>((resolve, reject) => {
    const done = () => {
      process.stdout.off('drain', done);
      process.stdout.off('error', done);
      if (closed) reject(new OutputClosed());
      else resolve();
    };
    process.stdout.on('drain', done);
    process.stdout.on('error', done);
  });
}
