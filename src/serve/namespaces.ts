// Iceberg namespaces are Strata's schemas: one level. A namespace in a path or in `parent` is one string whose
// levels are split by the unit separator 0x1F (the spec's default `namespace-separator`, which this server
// advertises by not overriding it).
import { noSuchNamespace } from './rest-errors.js';

const SEPARATOR = '\u001f';

/** The levels of a namespace as a request names it. */
const levels = (encoded: string): string[] => encoded.split(SEPARATOR);

/** The schema a namespace names, or NoSuchNamespace when it has more than one level (no schema has). */
export function schemaOf(encoded: string, exists: readonly string[]): string {
  const parts = levels(encoded);
  if (parts.length === 1 && exists.includes(parts[0]!)) return parts[0]!;
  const shown = JSON.stringify(parts);
  const listed = exists.length === 0 ? 'there are none yet' : `there are ${exists.length}: ${exists.slice(0, 10).map((s) => JSON.stringify(s)).join(', ')}${exists.length > 10 ? ', …' : ''}`;
  const why = parts.length === 1 ? '' : ' (Strata\'s namespaces are its schemas, one level each)';
  throw noSuchNamespace(`namespace ${shown} does not exist${why}; ${listed} (GET /v1/namespaces lists them)`);
}
