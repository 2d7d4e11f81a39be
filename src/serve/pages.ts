// Pagination as the spec's PageToken says: without `pageToken` every item in one response with a null
// `next-page-token`; with one (an empty one starts), at most `pageSize` items after the token. The token is the
// last name a page held, so a listing that changes between pages neither repeats nor skips a name it kept.
import { badRequest } from './rest-errors.js';

export interface PageRequest {
  pageToken?: string;
  pageSize?: number;
}

export function pageOf<T>(items: readonly T[], nameOf: (t: T) => string, q: PageRequest): { items: T[]; next: string | null } {
  if (q.pageToken === undefined) return { items: [...items], next: null };
  let after = '';
  if (q.pageToken !== '') {
    const decoded = Buffer.from(q.pageToken, 'base64url').toString('utf8');
    if (!decoded.startsWith('>')) throw badRequest(`pageToken ${JSON.stringify(q.pageToken)} is not one this server gave; start again with an empty pageToken`);
    after = decoded.slice(1);
  }
  const rest = items.filter((t) => nameOf(t) > after);
  const size = q.pageSize ?? rest.length;
  const page = rest.slice(0, size);
  const next = rest.length > size ? Buffer.from(`>${nameOf(page.at(-1)!)}`, 'utf8').toString('base64url') : null;
  return { items: page, next };
}
