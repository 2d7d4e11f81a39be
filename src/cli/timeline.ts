// A picture of the history: every snapshot id from the first to the newest, which are still here and why
// (retained, tagged, leased), which excision removed, where retain-from stands and what each excision job
// took — as a terminal sketch and as an SVG a browser shows.
import type { Catalog } from '../catalog/catalog.js';
import { printable } from './format.js';

export interface Timeline {
  head: number;
  retainFrom: number;
  snapshots: { id: number; time: Date; maintenance: boolean }[];
  tags: { name: string; snapshot: number }[];
  leases: { holder: string; snapshot: number; expiresAt: Date; expired: boolean }[];
  jobs: { id: number; retainFrom: number; versions: number; snapshots: number; files: number; finishedAt: Date | null }[];
}

export async function timelineOf(c: Catalog): Promise<Timeline> {
  const snapshots = (await c.snapshots()).map((s) => ({ id: s.id, time: s.time, maintenance: s.maintenance }));
  return {
    head: snapshots.at(-1)?.id ?? 0,
    retainFrom: await c.retainFrom(),
    snapshots,
    tags: (await c.tags()).map((t) => ({ name: t.name, snapshot: t.snapshot })),
    leases: (await c.leases()).map((l) => ({ holder: l.holder, snapshot: l.snapshot, expiresAt: l.expiresAt, expired: l.expired })),
    jobs: (await c.excisionJobs()).map((j) => ({
      id: j.id, retainFrom: j.retainFrom, versions: j.versions, snapshots: j.snapshots, files: j.files, finishedAt: j.finishedAt === null ? null : new Date(j.finishedAt),
    })),
  };
}

type Kind = 'excised' | 'retained' | 'tagged' | 'leased' | 'maintenance';

/** Ids `lo` to `hi` drawn as one mark, of the kind of the snapshot that matters most among them. */
interface Mark {
  lo: number;
  hi: number;
  kind: Kind;
}

/**
 * The ids 0 to head as at most `most` marks: each id its own while they fit, else runs of ids of one width,
 * each of the kind that ranks first among them (an id with no snapshot — excised, or never one, as in an
 * imported lake whose ids have gaps — is 'excised'). A tag or a live lease is why a snapshot below retain-from
 * is still here. Costs what the snapshots and marks are, not what the ids are (an import may reach id 10^12).
 */
function marks(t: Timeline, most: number): Mark[] {
  const tagged = new Set(t.tags.map((x) => x.snapshot));
  const leased = new Set(t.leases.filter((l) => !l.expired).map((l) => l.snapshot));
  const kindOf = (s: Timeline['snapshots'][number]): Kind => (tagged.has(s.id) ? 'tagged' : leased.has(s.id) ? 'leased' : s.maintenance ? 'maintenance' : 'retained');
  const ids = t.head + 1;
  const per = Math.max(1, Math.ceil(ids / most));
  const count = Math.ceil(ids / per);
  const out: Mark[] = Array.from({ length: count }, (_, i) => ({ lo: i * per, hi: Math.min(ids, (i + 1) * per) - 1, kind: 'excised' as Kind }));
  for (const s of t.snapshots) {
    const m = out[Math.floor(s.id / per)];
    if (m === undefined) continue;
    const kind = kindOf(s);
    if (RANK.indexOf(kind) < RANK.indexOf(m.kind)) m.kind = kind;
  }
  return out;
}

const MARK: Record<Kind, string> = { excised: '·', retained: '●', maintenance: '○', tagged: '◆', leased: '▲' };
const RANK: Kind[] = ['tagged', 'leased', 'retained', 'maintenance', 'excised'];

/** The sketch: one character per snapshot (or per run of them, at most `width`), then what pins what. */
export function sketch(t: Timeline, width = 80): string {
  const k = marks(t, width);
  const per = k[0] === undefined ? 1 : k[0].hi - k[0].lo + 1;
  const strip = k.map((m) => MARK[m.kind]).join('');
  const marker = k.map((m) => (m.lo <= t.retainFrom && t.retainFrom <= m.hi ? '^' : ' ')).join('');
  const excised = t.head + 1 - t.snapshots.length;
  const lines = [
    `snapshots 0–${t.head}: ${t.snapshots.length} here, ${excised} excised; retain-from ${t.retainFrom}${per > 1 ? ` (one mark per ${per} snapshots)` : ''}`,
    `  ${strip}`,
    `  ${marker.trimEnd()} retain-from ${t.retainFrom}`,
    `  ${MARK.retained} retained  ${MARK.maintenance} maintenance  ${MARK.tagged} tagged  ${MARK.leased} leased  ${MARK.excised} excised`,
  ];
  const below = (id: number) => (id < t.retainFrom ? ' (below retain-from: kept by it)' : '');
  for (const x of t.tags) lines.push(`  tag ${x.name} → snapshot ${x.snapshot}${below(x.snapshot)}`);
  for (const l of t.leases) lines.push(`  lease of ${l.holder} on snapshot ${l.snapshot}, ${l.expired ? 'expired' : 'until'} ${l.expiresAt.toISOString()}${l.expired ? '' : below(l.snapshot)}`);
  for (const j of t.jobs) lines.push(`  excision job ${j.id} (retain-from ${j.retainFrom}): removed ${j.versions} versions and ${j.snapshots} snapshots, scheduled ${j.files} files${j.finishedAt ? `, ${j.finishedAt.toISOString()}` : ', unfinished'}`);
  return printable(lines.join('\n'));
}

const esc = (s: string) => s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
const FILL: Record<Kind, string> = { excised: 'none', retained: '#2b6cb0', maintenance: '#a0aec0', tagged: '#d69e2e', leased: '#38a169' };

/** The SVG: ids left to right, retain-from as a line with what lies below it shaded, tags and leases labelled. */
export function svg(t: Timeline): string {
  const W = 1000;
  const left = 60;
  const right = 40;
  const axis = 170;
  // At most a mark per pixel of the axis: a run of ids shares one beyond that.
  const k = marks(t, W - left - right);
  const per = k[0] === undefined ? 1 : k[0].hi - k[0].lo + 1;
  const step = k.length > 1 ? (W - left - right) / (k.length - 1) : 0;
  const x = (id: number) => left + Math.floor(id / per) * step;
  // Marks of what is still here stay visible however many ids share the width; excised ids too dense for a
  // mark each are drawn as runs.
  const r = Math.max(4, Math.min(7, step / 2.5));
  const dense = step < 4;
  const times = new Map(t.snapshots.map((s) => [s.id, s.time]));
  const parts: string[] = [];
  parts.push(`<rect x="0" y="0" width="${W}" height="100%" fill="#ffffff"/>`);
  parts.push(`<text x="${left}" y="28" font-size="18" font-weight="bold">History of the catalog: snapshots 0–${t.head}</text>`);
  if (t.retainFrom > 0) {
    parts.push(`<rect x="${left - r - 4}" y="60" width="${x(t.retainFrom) - left + r + 4 - step / 2}" height="${axis - 30}" fill="#edf2f7"/>`);
    parts.push(`<text x="${left}" y="76" font-size="12" fill="#4a5568">below retain-from: out of retention</text>`);
  }
  const rf = x(t.retainFrom) - step / 2;
  parts.push(`<line x1="${rf}" y1="56" x2="${rf}" y2="${axis + 24}" stroke="#c53030" stroke-width="2" stroke-dasharray="6 4"/>`);
  const nearRight = rf > W - right - 120;
  parts.push(`<text x="${nearRight ? rf - 4 : rf + 4}" y="52" font-size="12" fill="#c53030"${nearRight ? ' text-anchor="end"' : ''}>retain-from ${t.retainFrom}</text>`);
  parts.push(`<line x1="${left}" y1="${axis}" x2="${x(t.head)}" y2="${axis}" stroke="#718096"/>`);
  if (dense) {
    for (let i = 0; i < k.length; i++) {
      if (k[i]!.kind !== 'excised') continue;
      let end = i;
      while (end + 1 < k.length && k[end + 1]!.kind === 'excised') end++;
      parts.push(`<rect x="${x(k[i]!.lo) - 1}" y="${axis - 4}" width="${x(k[end]!.lo) - x(k[i]!.lo) + 2}" height="8" fill="#cbd5e0"><title>snapshots ${k[i]!.lo}–${k[end]!.hi}: excised</title></rect>`);
      i = end;
    }
  }
  for (const m of k) {
    const cx = x(m.lo);
    const ids = m.lo === m.hi ? `snapshot ${m.lo}` : `snapshots ${m.lo}–${m.hi}`;
    const title = `${ids}: ${m.kind}${m.lo === m.hi && times.get(m.lo) ? ` at ${times.get(m.lo)!.toISOString()}` : ''}`;
    if (m.kind === 'excised') {
      if (dense) continue;
      parts.push(`<g><title>${esc(title)}</title><line x1="${cx - r}" y1="${axis - r}" x2="${cx + r}" y2="${axis + r}" stroke="#a0aec0"/><line x1="${cx - r}" y1="${axis + r}" x2="${cx + r}" y2="${axis - r}" stroke="#a0aec0"/></g>`);
    } else {
      parts.push(`<circle cx="${cx}" cy="${axis}" r="${r}" fill="${FILL[m.kind]}" stroke="#1a202c" stroke-width="0.5"><title>${esc(title)}</title></circle>`);
    }
  }
  t.tags.forEach((tag, i) => {
    const cx = x(tag.snapshot);
    const y = axis - 24 - (i % 3) * 16;
    parts.push(`<line x1="${cx}" y1="${axis - r}" x2="${cx}" y2="${y + 4}" stroke="#d69e2e"/>`);
    parts.push(`<text x="${cx + 3}" y="${y}" font-size="12" fill="#975a16">tag ${esc(tag.name)} → ${tag.snapshot}</text>`);
  });
  t.leases.forEach((l, i) => {
    const cx = x(l.snapshot);
    const y = axis + 30 + (i % 3) * 16;
    const colour = l.expired ? '#a0aec0' : '#276749';
    parts.push(`<path d="M ${cx} ${axis + r + 2} l -5 9 l 10 0 z" fill="${colour}"/>`);
    parts.push(`<text x="${cx + 8}" y="${y}" font-size="12" fill="${colour}">lease ${esc(l.holder)} on ${l.snapshot}${l.expired ? ' (expired)' : ` until ${l.expiresAt.toISOString()}`}</text>`);
  });
  const first = t.snapshots[0];
  const last = t.snapshots.at(-1);
  if (first) parts.push(`<text x="${x(first.id)}" y="${axis + 86}" font-size="11" fill="#4a5568">${first.id}: ${first.time.toISOString()}</text>`);
  if (last && last !== first) parts.push(`<text x="${x(last.id)}" y="${axis + 86}" font-size="11" fill="#4a5568" text-anchor="end">${last.id}: ${last.time.toISOString()}</text>`);
  let y = axis + 116;
  for (const j of t.jobs) {
    parts.push(`<text x="${left}" y="${y}" font-size="12">excision job ${j.id} (retain-from ${j.retainFrom}): removed ${j.versions} versions and ${j.snapshots} snapshots, scheduled ${j.files} files</text>`);
    y += 16;
  }
  const legend: [Kind, string][] = [['retained', 'retained'], ['maintenance', 'maintenance'], ['tagged', 'tagged'], ['leased', 'leased'], ['excised', 'excised']];
  legend.forEach(([kind, label], i) => {
    const lx = left + i * 130;
    parts.push(kind === 'excised'
      ? `<text x="${lx - 5}" y="${y + 14}" font-size="14" fill="#a0aec0">×</text>`
      : `<circle cx="${lx}" cy="${y + 10}" r="6" fill="${FILL[kind]}" stroke="#1a202c" stroke-width="0.5"/>`);
    parts.push(`<text x="${lx + 12}" y="${y + 14}" font-size="12">${label}</text>`);
  });
  const height = y + 40;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${height}" viewBox="0 0 ${W} ${height}" font-family="sans-serif">\n${parts.join('\n')}\n</svg>\n`;
}
