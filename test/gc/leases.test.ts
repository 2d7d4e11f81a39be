// Leases at their edges: the options a lease takes (refused word for word), renewing up to the millisecond it
// expires and never after, a renewal keeping when the lease was first taken, and which leases list as expired.
import { describe, expect, it } from 'vitest';
import { openIndex, refusal } from './gc-helpers.js';
import { checkLeaseOptions, planLease, planRenew } from '../../gc/leases.js';
import { kvSeq, snapshotId } from '../../keys/ids.js';
import { putLease } from '../../keys/retention.js';
import * as q from '../../src/read/catalog-queries.js';
import { isStrataError } from '../../src/index.js';
import { openCatalog, tempDir } from '../helpers.js';

const YEAR_MS = 365 * 24 * 3600 * 1000;
const NOW = Date.UTC(2026, 0, 1);



describe('checkLeaseOptions', () => {
  it('takes a ttl of 1 ms up to a year, and a non-empty holder or none', () => {
    expect(checkLeaseOptions({ ttlMs: 1 })).toEqual({ ttlMs: 1, holder: undefined });
    expect(checkLeaseOptions({ ttlMs: YEAR_MS, holder: 'nightly-report' })).toEqual({ ttlMs: YEAR_MS, holder: 'nightly-report' });
  });

  it('refuses any other ttl, saying what it takes and what it got', () => {
    const takes = `lease takes { ttlMs, holder? } with ttlMs a whole number of ms from 1 to ${YEAR_MS} (a year), got `;
    for (const [ttlMs, got] of [[0, '0'], [YEAR_MS + 1, String(YEAR_MS + 1)], [1.5, '1.5'], ['60000', '"60000"'], [undefined, 'undefined']] as const) {
      const err = refusal(() => checkLeaseOptions({ ttlMs } as never));
      expect(err.code).toBe('INVALID_ARGUMENT');
      expect(err.message).toBe(takes + got);
    }
    expect(refusal(() => checkLeaseOptions(undefined)).message).toBe(`${takes}undefined`);
  });

  it('refuses an option it does not have, naming the ones it has', () => {
    expect(refusal(() => checkLeaseOptions({ ttlms: 1000 } as never)).message).toBe(
      'lease has no option "ttlms" (did you mean "ttlMs"?); its options are ttlMs, holder',
    );
  });

  it('refuses a holder that is empty or not a string', () => {
    expect(refusal(() => checkLeaseOptions({ ttlMs: 1, holder: '' })).message).toBe('lease holder must be a non-empty string, got ""');
    const err = refusal(() => checkLeaseOptions({ ttlMs: 1, holder: 7 } as never));
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.message).toBe('lease holder must be a non-empty string, got 7');
  });
});

describe('renewing a lease', () => {
  it('works until the millisecond it expires; from then on it is refused, saying when it expired and what to do', async () => {
    let now = NOW;
    const c = await openCatalog({ clock: () => now });
    await c.transaction((tx) => tx.createTable('main', 't', [{ name: 'i', type: 'int32' }]));
    const r = await c.reader({ lease: { ttlMs: 1000, holder: 'job' } });
    const id = r.lease!.id;
    now += 999;
    expect(await r.renew(1000)).toEqual(new Date(NOW + 1999));
    now = NOW + 1999;
    expect((await c.leases()).map((l) => l.expired)).toEqual([true]); // expired at its expiry, not a moment after
    now = NOW + 1998;
    expect((await c.leases()).map((l) => l.expired)).toEqual([false]);
    now = NOW + 1999;
    const err = (await r.renew(1000).catch((e: unknown) => e)) as { message: string; snapshot?: number };
    expect(isStrataError(err, 'OUT_OF_RETENTION')).toBe(true);
    expect(err.message).toBe(
      `lease ${id} expired at ${new Date(NOW + 1999).toISOString()}; GC may have acted on its snapshot since — open a new reader`,
    );
    expect(err.snapshot).toBe(r.snapshot.id);
    await r.close();
    await c.close();
  });

  it('of a lease that is gone is refused, and a renewal keeps when the lease was first taken', async () => {
    const kv = await openIndex(await tempDir());
    const view0 = await kv.readView();
    const gone = (await planRenew(view0, 'lease-1', NOW, 1000).catch((e: unknown) => e)) as { message: string; snapshot?: number };
    await view0.close();
    expect(isStrataError(gone, 'OUT_OF_RETENTION')).toBe(true);
    expect(gone.message).toBe('lease lease-1 no longer exists; GC may have acted on its snapshot since — open a new reader');
    expect(gone.snapshot).toBeUndefined();

    // Snapshot 0 needs no catalog behind it: it is never out of retention.
    await kv.apply(kvSeq(1), 'txn-1', [putLease('lease-1', { holder: 'h', snapshot: snapshotId(0), expiresAt: NOW + 1000, createdAt: NOW - 5000 })]);
    const view1 = await kv.readView();
    const renewed = await planRenew(view1, 'lease-1', NOW + 500, 2000);
    const fresh = await planLease(view1, 'lease-2', snapshotId(0), 'h', NOW + 500, 2000);
    await view1.close();
    await kv.apply(kvSeq(2), 'txn-2', [...renewed, ...fresh]);
    const view2 = await kv.readView();
    try {
      expect(await q.lease(view2, 'lease-1')).toEqual({ holder: 'h', snapshot: 0, expiresAt: NOW + 2500, createdAt: NOW - 5000 });
      expect(await q.lease(view2, 'lease-2')).toEqual({ holder: 'h', snapshot: 0, expiresAt: NOW + 2500, createdAt: NOW + 500 });
    } finally {
      await view2.close();
    }
  });
});
