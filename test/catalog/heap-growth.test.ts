// verify holds V8's heap growth while it runs (decision 0062): the first job in sets it, the last out puts the
// process's own back, a process started with a smaller factor keeps it, and — in a process of its own, since the
// flag is the process's — a heap churned through under the hold stays well below one churned through without.
import { describe, expect, it } from 'vitest';
import { HELD_GROWTH_PERCENT, HeapGrowth, startingGrowthPercent } from '../../src/commit/heap-growth.js';
import { runTsx } from '../helpers.js';

const recording = (starting: number) => {
  const set: string[] = [];
  return { set, growth: new HeapGrowth((flags) => set.push(flags), starting) };
};

describe('the factor a process was started with', () => {
  it('is read from its arguments, in either spelling and form, and is 0 when not given', () => {
    expect(startingGrowthPercent([])).toBe(0);
    expect(startingGrowthPercent(['--heap-growing-percent=20'])).toBe(20);
    expect(startingGrowthPercent(['--heap_growing_percent', '35'])).toBe(35);
    expect(startingGrowthPercent(['--max-old-space-size=96', '--heap-growing-percent=10', '--enable-source-maps'])).toBe(10);
    expect(startingGrowthPercent(['--heap-growing-percent=many'])).toBe(0);
    expect(startingGrowthPercent(['--heap-growing-percents=20'])).toBe(0);
  });
});

describe('holding the growth', () => {
  it('sets it when the first job starts and puts the default back when the last one ends, failed or not', async () => {
    const { set, growth } = recording(0);
    let release!: () => void;
    const first = growth.held(() => new Promise<void>((r) => (release = r)));
    await growth.held(async () => {
      expect(set).toEqual([`--heap-growing-percent=${HELD_GROWTH_PERCENT}`]);
    });
    await expect(growth.held(() => Promise.reject(new Error('a job failed')))).rejects.toThrow('a job failed');
    expect(set).toHaveLength(1);
    release();
    await first;
    expect(set).toEqual([`--heap-growing-percent=${HELD_GROWTH_PERCENT}`, '--heap-growing-percent=0']);
    await growth.held(async () => {});
    expect(set).toHaveLength(4);
  });

  it('puts back a larger factor the process was started with, and leaves a smaller one alone', async () => {
    const larger = recording(80);
    await larger.growth.held(async () => {});
    expect(larger.set).toEqual([`--heap-growing-percent=${HELD_GROWTH_PERCENT}`, '--heap-growing-percent=80']);
    const smaller = recording(20);
    await smaller.growth.held(async () => {});
    expect(smaller.set).toEqual([]);
  });

  it('keeps a heap churned through near what is alive, where V8 alone lets it grow to several times that', async () => {
    const highest = async (mode: string) => JSON.parse((await runTsx(new URL('../fixtures/heap-churn-child.ts', import.meta.url), [mode])).stdout).highest as number;
    const free = await highest('free');
    const held = await highest('held');
    expect(held).toBeLessThan(free * 0.6);
  }, 60_000);
});
