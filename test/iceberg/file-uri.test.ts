import fc from 'fast-check';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fileUri } from '../../src/iceberg/file-uri.js';

describe('fileUri', () => {
  it('gives every absolute path the URI Node gives it', () => {
    // Segments from plain characters and the ones Node escapes or resolves: its shortcut must never differ.
    const segment = fc.array(fc.constantFrom('a', 'Z', '0', '_', '-', '~', '.', '..', ' ', '#', '?', '%', 'é', '\\', '\n', '+', ':', '@'), { maxLength: 6 }).map((cs) => cs.join(''));
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 5 }), fc.boolean(), (segments, slash) => {
        const p = `/${segments.join('/')}${slash ? '/' : ''}`;
        expect(fileUri(p)).toBe(pathToFileURL(p).href);
      }),
      { numRuns: 2000 },
    );
  });

  it('escapes what a URI cannot hold and resolves dot segments, as Node does', () => {
    for (const p of ['/lake/a b/x.parquet', '/lake/100%/x', '/lake/#1', '/lake/../x', '/lake/./x', '/lake//x', '/lake/.hidden/x', '/lake/dir/'])
      expect(fileUri(p)).toBe(pathToFileURL(p).href);
    expect(fileUri('/lake/main/big/k-1_2.3.parquet')).toBe('file:///lake/main/big/k-1_2.3.parquet');
  });

  it('leaves a URI as it is', () => {
    expect(fileUri('s3://bucket/lake/x.parquet')).toBe('s3://bucket/lake/x.parquet');
  });
});
