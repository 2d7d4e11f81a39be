// A table's Iceberg snapshots, planned from the versions of its files: one per catalog snapshot that began or
// ended a data or delete file of the table, with the catalog's snapshot id as its id and sequence number.
//
// Manifests are shared across snapshots: the files one commit added (a *group*, named by that commit) are one
// manifest, written once, for as long as none of them ends. When some end, the group's manifest at a later
// snapshot lists those still live, and is named by the last end it has seen (its *cut*): so serving the
// snapshot after one commit needs the new group's manifest and a new manifest for each group that commit took
// files from, nothing else, and every manifest is immutable.

/** One version of a data or delete file of the table, as the catalog records it. */
export interface FileVersion {
  id: number;
  /** Records in a data file; deleted positions in a delete file. */
  records: number;
  size: number;
  begin: number;
  end: number | null;
}

export type ManifestContent = 'data' | 'deletes';

/** A manifest: the files of one group live after its cut (0: the group as its commit added it). */
export interface ManifestKey {
  content: ManifestContent;
  group: number;
  cut: number;
}

export type Operation = 'append' | 'delete' | 'overwrite' | 'replace';

export interface PlannedSnapshot {
  id: number;
  parent: number | null;
  operation: Operation;
  summary: Record<string, string>;
  manifests: ManifestKey[];
}

export interface SnapshotFacts {
  /** A maintenance commit (a compaction): its adds and removals change no row. */
  maintenance: boolean;
}

/**
 * The table's Iceberg snapshots up to `upTo`, oldest first, from every version of its files the catalog still
 * holds: each catalog snapshot in (`from` − 1, `upTo`] at which one began or ended, and the snapshots `also`
 * names (tagged ones below the horizon, still readable). `facts` says what each was. One sweep over the files' begins and ends in snapshot order, keeping the totals and each group's live count
 * and cut as it goes: a table of 10,000 files and hundreds of snapshots is planned in milliseconds.
 */
export function planSnapshots(
  data: readonly FileVersion[],
  deletes: readonly FileVersion[],
  from: number,
  upTo: number,
  facts: (id: number) => SnapshotFacts,
  also: readonly number[] = [],
): PlannedSnapshot[] {
  const points = [...new Set([...also, ...changePoints(data, deletes, from, upTo)])].sort((a, b) => a - b);
  const d = new Sweep(data);
  const x = new Sweep(deletes);
  const out: PlannedSnapshot[] = [];
  for (const s of points) {
    d.advanceTo(s);
    x.advanceTo(s);
    out.push({
      id: s,
      parent: out.at(-1)?.id ?? null,
      operation: operation(d.begun(s).length > 0, d.ended(s).length > 0, x.begun(s).length > 0, facts(s)),
      summary: summary(d, x, s),
      manifests: [...d.manifests('data'), ...x.manifests('deletes')],
    });
  }
  return out;
}

/** The catalog snapshots in [from, upTo] that began or ended a file, ascending: the table's Iceberg snapshots. */
export function changePoints(data: readonly FileVersion[], deletes: readonly FileVersion[], from: number, upTo: number): number[] {
  const changes = new Set<number>();
  for (const f of [...data, ...deletes]) {
    if (f.begin >= from && f.begin <= upTo) changes.add(f.begin);
    if (f.end !== null && f.end >= from && f.end <= upTo) changes.add(f.end);
  }
  return [...changes].sort((a, b) => a - b);
}

/** The files a manifest lists: the group's files still live after its cut. */
export function manifestFiles<F extends FileVersion>(files: readonly F[], key: ManifestKey): F[] {
  return files.filter((f) => f.begin === key.group && (f.end === null || f.end > key.cut));
}

/** The files of one kind, walked in snapshot order: what began and ended at each snapshot, and what is live. */
class Sweep {
  private readonly byBegin = new Map<number, FileVersion[]>();
  private readonly byEnd = new Map<number, FileVersion[]>();
  private readonly events: number[];
  private next = 0;
  /** Per group (the snapshot that added its files): how many are live, and the last end seen (its cut). */
  private readonly groups = new Map<number, { live: number; cut: number }>();
  readonly total = { files: 0, records: 0, size: 0 };

  constructor(files: readonly FileVersion[]) {
    for (const f of files) {
      push(this.byBegin, f.begin, f);
      if (f.end !== null) push(this.byEnd, f.end, f);
    }
    this.events = [...new Set([...this.byBegin.keys(), ...this.byEnd.keys()])].sort((a, b) => a - b);
    for (const g of [...this.byBegin.keys()].sort((a, b) => a - b)) this.groups.set(g, { live: 0, cut: 0 });
  }

  begun = (s: number): readonly FileVersion[] => this.byBegin.get(s) ?? [];
  ended = (s: number): readonly FileVersion[] => this.byEnd.get(s) ?? [];

  /** Applies every begin and end up to and including `s`: a file is live at s when begin ≤ s < end. */
  advanceTo(s: number): void {
    for (; this.next < this.events.length && this.events[this.next]! <= s; this.next++) {
      const at = this.events[this.next]!;
      for (const f of this.begun(at)) this.count(f, 1);
      for (const f of this.ended(at)) {
        this.count(f, -1);
        const g = this.groups.get(f.begin)!;
        g.cut = Math.max(g.cut, at);
      }
    }
  }

  private count(f: FileVersion, sign: 1 | -1): void {
    this.groups.get(f.begin)!.live += sign;
    this.total.files += sign;
    this.total.records += sign * f.records;
    this.total.size += sign * f.size;
  }

  /** The manifests of the groups with a live file, oldest group first (the map keeps them in that order). */
  manifests(content: ManifestContent): ManifestKey[] {
    const out: ManifestKey[] = [];
    for (const [group, g] of this.groups) if (g.live > 0) out.push({ content, group, cut: g.cut });
    return out;
  }
}

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const list = m.get(k);
  if (list === undefined) m.set(k, [v]);
  else list.push(v);
}

function operation(addedData: boolean, removedData: boolean, addedDeletes: boolean, facts: SnapshotFacts): Operation {
  if (facts.maintenance) return 'replace';
  if (addedData && !removedData && !addedDeletes) return 'append';
  if (!addedData) return 'delete';
  return 'overwrite';
}

/** Iceberg's summary fields (the spec's Appendix F) for what the snapshot changed and what it holds. */
function summary(d: Sweep, x: Sweep, s: number): Record<string, string> {
  const records = (files: readonly FileVersion[]) => files.reduce((n, f) => n + f.records, 0);
  const size = (files: readonly FileVersion[]) => files.reduce((n, f) => n + f.size, 0);
  const fields: [string, number][] = [
    ['added-data-files', d.begun(s).length],
    ['deleted-data-files', d.ended(s).length],
    ['added-records', records(d.begun(s))],
    ['deleted-records', records(d.ended(s))],
    ['added-delete-files', x.begun(s).length],
    ['removed-delete-files', x.ended(s).length],
    ['added-position-deletes', records(x.begun(s))],
    ['removed-position-deletes', records(x.ended(s))],
    ['added-files-size', size(d.begun(s)) + size(x.begun(s))],
    ['removed-files-size', size(d.ended(s)) + size(x.ended(s))],
    ['total-records', d.total.records],
    ['total-data-files', d.total.files],
    ['total-delete-files', x.total.files],
    ['total-position-deletes', x.total.records],
    ['total-equality-deletes', 0],
    ['total-files-size', d.total.size + x.total.size],
  ];
  return Object.fromEntries(fields.map(([k, v]) => [k, String(v)]));
}
