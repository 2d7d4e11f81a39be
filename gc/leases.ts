// Leases: durable pins that snapshot-pinned readers take so that GC in any process keeps their snapshot.
// A lease is a row in the index, written by a system log entry like a tag; it protects until it expires
// (catalog clock), and its reader's close() deletes it.
import type { SnapshotId } from '../keys/ids.js';
import type { Mutation } from '../keys/mutation.js';
import { dropLease, type LeaseRow, putLease } from '../keys/retention.js';
import { options, shown } from '../src/arguments.js';
import { StrataError } from '../src/errors.js';
import type { ReadView } from '../src/kv/read-view.js';
import * as q from '../src/read/catalog-queries.js';
import { randomUUID } from '../src/random.js';

export interface LeaseOptions {
  /** How long the lease protects its snapshot without a renew(), in ms. */
  ttlMs: number;
  /** Who holds it, for leases() and for the clampedBy of advanceRetainFrom (default host:pid). */
  holder?: string;
}

export interface LeaseInfo {
  id: string;
  holder: string;
  snapshot: SnapshotId;
  expiresAt: Date;
  expired: boolean;
}

/** The longest lease: a year (longer leases are a pin that nobody will ever release, and times past 2^53 ms break). */
const MAX_TTL_MS = 365 * 24 * 3600 * 1000;

export function checkLeaseOptions(o: LeaseOptions | undefined): { ttlMs: number; holder: string | undefined } {
  const opts = options('lease', o, ['ttlMs', 'holder']);
  if (!Number.isSafeInteger(opts.ttlMs) || opts.ttlMs < 1 || opts.ttlMs > MAX_TTL_MS) {
    throw new StrataError('INVALID_ARGUMENT', `lease takes { ttlMs, holder? } with ttlMs a whole number of ms from 1 to ${MAX_TTL_MS} (a year), got ${shown(opts.ttlMs)}`);
  }
  if (opts.holder !== undefined && (typeof opts.holder !== 'string' || opts.holder === '')) {
    throw new StrataError('INVALID_ARGUMENT', `lease holder must be a non-empty string, got ${JSON.stringify(opts.holder)}`);
  }
  return { ttlMs: opts.ttlMs, holder: opts.holder };
}

export function newLeaseId(): string {
  return randomUUID();
}

/** The mutation that writes a lease on `snapshot`, refused if the snapshot is out of retention by now. */
export async function planLease(view: ReadView, id: string, snapshot: SnapshotId, holder: string, now: number, ttlMs: number): Promise<Mutation[]> {
  await q.assertRetained(view, snapshot);
  const existing = await q.lease(view, id);
  const row: LeaseRow = { holder, snapshot, expiresAt: now + ttlMs, createdAt: existing?.createdAt ?? now };
  return [putLease(id, row)];
}

/** Renewing needs the lease to still be there: an expired lease GC may already have acted on is gone for good. */
export async function planRenew(view: ReadView, id: string, now: number, ttlMs: number): Promise<Mutation[]> {
  const existing = await q.lease(view, id);
  if (existing === undefined || existing.expiresAt <= now) {
    throw new StrataError(
      'OUT_OF_RETENTION',
      `lease ${id} ${existing === undefined ? 'no longer exists' : `expired at ${new Date(existing.expiresAt).toISOString()}`}; ` +
        'GC may have acted on its snapshot since — open a new reader',
      existing === undefined ? {} : { snapshot: existing.snapshot },
    );
  }
  return planLease(view, id, existing.snapshot, existing.holder, now, ttlMs);
}

export function releaseLease(id: string): Mutation[] {
  return [dropLease(id)];
}

export async function listLeases(view: ReadView, now: number): Promise<LeaseInfo[]> {
  const out: LeaseInfo[] = [];
  for await (const l of q.leases(view)) {
    out.push({ id: l.id, holder: l.holder, snapshot: l.snapshot, expiresAt: new Date(l.expiresAt), expired: l.expiresAt <= now });
  }
  return out;
}
