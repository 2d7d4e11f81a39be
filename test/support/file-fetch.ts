// icebird reads with fetch only. This answers file:// URLs (whole, HEAD, or a byte range) as an object store
// would over HTTP, so icebird can read a directory store's tables; every other URL goes to the real fetch.
import { open, readFile, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';

/** Installs the file:// fetch for the test file that calls it, and puts the real one back after. */
export function fetchFileUrls(): void {
  const httpFetch = globalThis.fetch;
  beforeAll(() => {
    globalThis.fetch = (async (input: string | URL | Request, init?: RequestInit) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      if (!url.startsWith('file://')) return httpFetch(input, init);
      const file = fileURLToPath(url);
      const size = (await stat(file)).size;
      if (init?.method === 'HEAD') return new Response(null, { status: 200, headers: { 'content-length': String(size) } });
      const range = /bytes=(\d+)-(\d*)/.exec(new Headers(init?.headers).get('range') ?? '');
      if (range === null) return new Response(await readFile(file), { status: 200 });
      const start = Number(range[1]);
      const end = range[2] === '' ? size - 1 : Math.min(Number(range[2]), size - 1);
      const h = await open(file);
      try {
        const b = Buffer.alloc(end - start + 1);
        await h.read(b, 0, b.length, start);
        return new Response(b, { status: 206, headers: { 'content-length': String(b.length) } });
      } finally {
        await h.close();
      }
    }) as typeof fetch;
  });
  afterAll(() => {
    globalThis.fetch = httpFetch;
  });
}
