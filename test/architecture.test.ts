// The house, checked from the code's own imports (ARCHITECTURE.md, "Layers"): layers import only downwards,
// and every catalog table's encoding has one owner in keys/. (No cap on a module's lines: where code goes is
// decided by what it does, not by a count.)
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function sources(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((d) => {
    const rel = path.join(dir, d.name);
    if (d.isDirectory()) return sources(rel);
    return d.name.endsWith('.ts') ? [rel] : [];
  });
}

const files = ['src', 'keys', 'gc'].flatMap(sources);

/** Every relative import of a file, as a path from the repository root. */
function importsOf(file: string): string[] {
  const text = readFileSync(path.join(root, file), 'utf8');
  return [...text.matchAll(/from '(\.[^']+)'/g)].map((m) => path.join(path.dirname(file), m[1]!).replace(/\.js$/, '.ts'));
}

// Lower layers first, one whole rank each. A file may import from its own layer or any lower one, never from
// a higher one or a sibling of the same rank.
const LAYERS: [string, number][] = [
  ['src/errors.ts', 0],
  ['src/messages.ts', 0],
  ['src/make-dirs.ts', 1],
  ['src/on-first-use.ts', 1],
  ['src/snapshot-names.ts', 1],
  ['keys/', 1],
  ['src/arguments.ts', 2],
  ['src/random.ts', 2],
  ['src/in-parallel.ts', 2],
  ['src/last-seen.ts', 2],
  ['src/store/', 3],
  ['src/kv/', 4],
  ['src/log/', 4],
  ['src/read/', 5],
  ['src/txn/', 6],
  ['gc/', 6],
  ['src/commit/', 7],
  // Iceberg's type rule is pure, and the SQL layer writes it into each Parquet footer: a floor below sql/.
  ['src/iceberg/types.ts', 7],
  ['src/sql/', 8],
  ['src/ducklake/', 9],
  ['src/iceberg/', 9],
  ['src/catalog/', 10],
  ['src/serve/', 11],
  ['src/cli/', 12],
  ['src/index.ts', 12],
];

function layerOf(file: string): [string, number] {
  const hit = LAYERS.find(([prefix]) => file === prefix || (prefix.endsWith('/') && file.startsWith(prefix)));
  if (hit === undefined) throw new Error(`${file} belongs to no layer: add it to LAYERS and to ARCHITECTURE.md`);
  return hit;
}

describe('the house', () => {
  it('every import runs to the same layer or a lower one', () => {
    const upward: string[] = [];
    for (const file of files) {
      const [from, rank] = layerOf(file);
      for (const target of importsOf(file)) {
        const [to, targetRank] = layerOf(target);
        if (to !== from && targetRank >= rank) upward.push(`${file} imports ${target}`);
      }
    }
    expect(upward).toEqual([]);
  });

  it('outside keys/, no module names a key space or builds a key', () => {
    const reaching: string[] = [];
    for (const file of files.filter((f) => !f.startsWith('keys/'))) {
      const text = readFileSync(path.join(root, file), 'utf8');
      if (importsOf(file).includes('keys/spaces.ts')) reaching.push(`${file} imports the space registry`);
      if (/\bimport\s*\{[^}]*\b(encodeKey|keyPrefix|endIndexKey)\b[^}]*\}\s*from '[^']*key-codec/.test(text)) reaching.push(`${file} builds keys`);
      if (/\bSpace\.[A-Z]/.test(text)) reaching.push(`${file} names a key space`);
    }
    expect(reaching).toEqual([]);
  });
});
