// The line of writers waiting for the segmented log's append lock (decision 0060): src/log/segment-waiters.ts
// orders them, src/log/segment-lock.ts lets the first in line take the lock and any other holder let it in.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { kvSeq } from '../../keys/ids.js';
import { SEGMENTS_DIR } from '../../src/log/segment-file.js';
import { AppendLock } from '../../src/log/segment-lock.js';
import { SegmentLog } from '../../src/log/segment-log.js';
import { Waiters } from '../../src/log/segment-waiters.js';
import { DirectoryStore } from '../../src/store/directory-store.js';
import { tempDir } from '../helpers.js';
import { entry } from '../support/segments.js';

/** A lock file with room for the line past its state, as segment-lock.ts lays it out. */
async function lineFile() {
  const dir = await tempDir();
  const fd = fs.openSync(path.join(dir, 'LOCK'), fs.constants.O_RDWR | fs.constants.O_CREAT);
  return { dir, waiters: new Waiters(() => fd, 32) };
}

describe('the line of waiting writers', () => {
  it('is in the order they began to wait, whatever order they stood in; ties by id', async () => {
    const { waiters } = await lineFile();
    waiters.stand(7, 2_000);
    waiters.stand(5, 1_000);
    waiters.stand(9, 1_000);
    expect([5, 7, 9].map((id) => waiters.first(id, id === 7 ? 2_000 : 1_000))).toEqual([true, false, false]);
    expect(waiters.othersWait(5)).toBe(true);
    waiters.leave(5);
    expect(waiters.first(9, 1_000)).toBe(true);
    expect(waiters.first(7, 2_000)).toBe(false);
    waiters.leave(9);
    expect(waiters.first(7, 2_000)).toBe(true);
    expect(waiters.othersWait(7)).toBe(false);
    expect(waiters.othersWait(8)).toBe(true);
  });

  it('a waiter that stops renewing its slot for a second is out of it, and its slot taken again', async () => {
    const { waiters } = await lineFile();
    for (let id = 1; id <= 16; id++) waiters.stand(id, 1_000 + id);
    // Every slot is taken: a seventeenth waits unseen.
    waiters.stand(17, 500);
    expect(waiters.first(2, 1_002)).toBe(false);
    await sleep(1_050);
    waiters.stand(17, 500);
    waiters.stand(16, 1_016);
    expect(waiters.first(17, 500)).toBe(true);
    expect(waiters.othersWait(17)).toBe(true);
    expect(waiters.first(16, 1_016)).toBe(false);
  });
});

describe('the append lock and its line', () => {
  it('lets the longest waiter in first; a holder sees the waiters while they wait', async () => {
    const dir = await tempDir();
    const holder = new AppendLock(dir, false);
    await holder.take();
    const order: string[] = [];
    const [b, c] = [new AppendLock(dir, false), new AppendLock(dir, false)];
    const tookB = b.take({ waiting: true }).then(() => order.push('b'));
    await sleep(20);
    const tookC = c.take({ waiting: true }).then(() => order.push('c'));
    await sleep(20);
    expect(holder.othersWait()).toBe(true);
    holder.release();
    await tookB;
    expect(order).toEqual(['b']);
    // b holds it; c still waits, and b sees it.
    expect(b.othersWait()).toBe(true);
    b.release();
    await tookC;
    expect(order).toEqual(['b', 'c']);
    expect(c.othersWait()).toBe(false);
    c.release();
    for (const l of [holder, b, c]) l.close();
  });

  it('a waiter whose log is closed stops waiting, out of the line', async () => {
    const dir = await tempDir();
    const holder = new AppendLock(dir, false);
    await holder.take();
    const waiter = new AppendLock(dir, false);
    const waiting = waiter.take({ waiting: true }).catch((e: unknown) => e);
    await sleep(20);
    waiter.close();
    expect(String(await waiting)).toMatch(/closed/);
    expect(holder.othersWait()).toBe(false);
    holder.release();
    holder.close();
  });
});

describe('an append while a writer waits in line', () => {
  it('writes nothing and counts as lost, so the waiter goes first; once the waiter is gone it lands', async () => {
    const root = await tempDir();
    const log = new SegmentLog(new DirectoryStore(root), root);
    for (let s = 1; s <= 3; s++) expect(await log.append(entry(s))).toBe(true);
    // Another process's writer standing in line (a slot of its own in the lock file).
    const fd = fs.openSync(path.join(root, SEGMENTS_DIR, 'LOCK'), 'r+');
    new Waiters(() => fd, 32).stand(12345, Date.now());
    expect(await log.append(entry(4))).toBe(false);
    expect(log.sawWaiterWithin(1_000)).toBe(true);
    expect(await new SegmentLog(new DirectoryStore(root), root).head(kvSeq(0))).toBe(3);
    // A slot not renewed for a second is a waiter that died.
    await sleep(1_050);
    expect(await log.append(entry(4))).toBe(true);
    fs.closeSync(fd);
  });
});
