// The routes of the Iceberg REST catalog's OpenAPI document (apache/iceberg, open-api/rest-catalog-open-api.yaml),
// by path, after `/v1` and the optional warehouse prefix: what lets the server tell a request for a route the
// spec has and this server does not serve (406, the spec's UnsupportedOperationException) from a path that is
// not the protocol's at all (404).
const SPEC_PATHS = [
  'namespaces',
  'namespaces/{}',
  'namespaces/{}/properties',
  'namespaces/{}/tables',
  'namespaces/{}/tables/{}',
  'namespaces/{}/tables/{}/plan',
  'namespaces/{}/tables/{}/plan/{}',
  'namespaces/{}/tables/{}/tasks',
  'namespaces/{}/tables/{}/unregister',
  'namespaces/{}/tables/{}/credentials',
  'namespaces/{}/tables/{}/sign',
  'namespaces/{}/tables/{}/metrics',
  'namespaces/{}/register',
  'namespaces/{}/register-view',
  'namespaces/{}/views',
  'namespaces/{}/views/{}',
  'namespaces/{}/functions',
  'namespaces/{}/functions/{}',
  'tables/rename',
  'views/rename',
  'transactions/commit',
];

const PATTERNS = SPEC_PATHS.map((p) => new RegExp(`^${p.replaceAll('{}', '[^/]+')}$`));

/** Whether `path` (the URL's path) is a route of the spec, with `prefixes` the warehouse prefixes served. */
export function isSpecRoute(path: string, prefixes: readonly string[]): boolean {
  if (path === '/v1/config' || path === '/v1/oauth/tokens') return true;
  for (const base of ['/v1/', ...prefixes.map((p) => `/v1/${encodeURIComponent(p)}/`)]) {
    if (path.startsWith(base) && PATTERNS.some((r) => r.test(path.slice(base.length)))) return true;
  }
  return false;
}
