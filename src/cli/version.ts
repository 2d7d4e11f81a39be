// The package's version, from its package.json: found upwards from this module, which runs from src/ under
// tsx and from dist/src/ once built.
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

export function packageVersion(): string {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'stratalake' && pkg.version) return pkg.version;
    }
    if (path.dirname(dir) === dir) return 'unknown';
  }
}
