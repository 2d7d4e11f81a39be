// A TCP proxy that holds every chunk, each way, for half an added round trip: the S3 server on loopback made
// to answer as a same-region service does (issue 46: 11 and 32 ms). Nagle is off on both legs, so small
// requests are not held back by the kernel on top of it.
import { connect, createServer, type Socket } from 'node:net';

export interface DelayProxy {
  endpoint: string;
  close(): void;
}

export async function delayProxy(target: string, roundTripMs: number): Promise<DelayProxy> {
  const to = new URL(target);
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(to.port), to.hostname);
    for (const [from, into] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      sockets.add(from);
      from.setNoDelay(true);
      from.on('data', (d: Buffer) => void setTimeout(() => into.write(d), roundTripMs / 2));
      from.on('error', () => into.destroy());
      from.on('close', () => (sockets.delete(from), setTimeout(() => into.destroy(), roundTripMs / 2)));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}
