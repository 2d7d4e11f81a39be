// `strata serve`: the catalog as an Iceberg REST catalog until SIGTERM or SIGINT. It prints the URL it listens
// on (stdout), logs a line per request (stderr), and on a signal stops taking requests, finishes those under
// way and closes the catalog, exiting 0.
import type { Catalog } from '../catalog/catalog.js';
import { serve } from '../serve/server.js';
import { say, UsageError, wholeNumber } from './context.js';
import { printable } from './format.js';

export interface ServeFlags {
  host: string;
  port: string;
  tokenEnv?: string;
  prefix?: string;
}

/** The server's options from the flags: the token from the environment variable --token-env names, never the command line. */
function serveOptions(o: ServeFlags) {
  const port = wholeNumber('--port', o.port);
  if (port > 65535) throw new UsageError(`--port takes 0 (any free port) to 65535, got ${port}`);
  let token: string | undefined;
  if (o.tokenEnv !== undefined) {
    token = process.env[o.tokenEnv];
    if (token === undefined || token === '') throw new UsageError(`--token-env ${o.tokenEnv}: that environment variable is not set or empty; set it to the bearer token clients must send`);
  }
  return { host: o.host, port, ...(token === undefined ? {} : { token }), ...(o.prefix === undefined ? {} : { prefix: o.prefix }) };
}

export async function serveUntilStopped(c: Catalog, o: ServeFlags): Promise<void> {
  // Listening for the signal before anything is said: a service manager may stop the server the moment it reads
  // the URL, and Node's first signal listener took ~0.8 ms to install, in which SIGTERM killed the process.
  const stopped = new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
  const server = await serve(c, { ...serveOptions(o), log: (line) => console.error(printable(line)) });
  say(`serving the Iceberg REST catalog at ${server.url}${o.prefix === undefined ? '' : ` (warehouse prefix ${o.prefix})`}`);
  await stopped;
  await server.close();
}
