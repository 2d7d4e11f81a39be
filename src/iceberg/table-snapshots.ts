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
 * holds: each catalog snapshot in (`from` − 1, `upTo`] at which one began or ended. `facts` says what each was.
 */
export function planSnapshots(
  data: readonly FileVersion[],
  deletes: readonly FileVersion[],
  from: number,
  upTo: number,
  facts: (id: number) => SnapshotFacts,
): PlannedSnapshot[] {
  const points = changePoints(data, deletes, from, upTo);
  const dataGroups = groups(data);
  const deleteGroups = groups(deletes);
  const out: PlannedSnapshot[] = [];
  for (const s of points) {
    out.push({
      id: s,
      parent: out.at(-1)?.id ?? null,
      operation: operation(data, deletes, s, facts(s)),
      summary: summary(data, deletes, s),
      manifests: [...manifestsAt('data', dataGroups, s), ...manifestsAt('deletes', deleteGroups, s)],
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

const live = (f: FileVersion, s: number) => f.begin <= s && (f.end === null || f.end > s);

function groups(files: readonly FileVersion[]): Map<number, FileVersion[]> {
  const out = new Map<number, FileVersion[]>();
  for (const f of files) {
    const g = out.get(f.begin);
    if (g === undefined) out.set(f.begin, [f]);
    else g.push(f);
  }
  return out;
}

function manifestsAt(content: ManifestContent, byGroup: Map<number, FileVersion[]>, s: number): ManifestKey[] {
  const out: ManifestKey[] = [];
  for (const [group, files] of [...byGroup].sort(([a], [b]) => a - b)) {
    if (group > s || !files.some((f) => live(f, s))) continue;
    const cut = files.reduce((m, f) => (f.end !== null && f.end <= s ? Math.max(m, f.end) : m), 0);
    out.push({ content, group, cut });
  }
  return out;
}

function operation(data: readonly FileVersion[], deletes: readonly FileVersion[], s: number, facts: SnapshotFacts): Operation {
  const addedData = data.some((f) => f.begin === s);
  const removedData = data.some((f) => f.end === s);
  const addedDeletes = deletes.some((f) => f.begin === s);
  if (facts.maintenance) return 'replace';
  if (addedData && !removedData && !addedDeletes) return 'append';
  if (!addedData) return 'delete';
  return 'overwrite';
}

/** Iceberg's summary fields (the spec's Appendix F) for what the snapshot changed and what it holds. */
function summary(data: readonly FileVersion[], deletes: readonly FileVersion[], s: number): Record<string, string> {
  const sum = (files: readonly FileVersion[], keep: (f: FileVersion) => boolean, of: (f: FileVersion) => number) =>
    files.reduce((n, f) => (keep(f) ? n + of(f) : n), 0);
  const count = () => 1;
  const records = (f: FileVersion) => f.records;
  const begun = (f: FileVersion) => f.begin === s;
  const ended = (f: FileVersion) => f.end === s;
  const now = (f: FileVersion) => live(f, s);
  const fields: [string, number][] = [
    ['added-data-files', sum(data, begun, count)],
    ['deleted-data-files', sum(data, ended, count)],
    ['added-records', sum(data, begun, records)],
    ['deleted-records', sum(data, ended, records)],
    ['added-delete-files', sum(deletes, begun, count)],
    ['removed-delete-files', sum(deletes, ended, count)],
    ['added-position-deletes', sum(deletes, begun, records)],
    ['removed-position-deletes', sum(deletes, ended, records)],
    ['added-files-size', sum(data, begun, (f) => f.size) + sum(deletes, begun, (f) => f.size)],
    ['removed-files-size', sum(data, ended, (f) => f.size) + sum(deletes, ended, (f) => f.size)],
    ['total-records', sum(data, now, records)],
    ['total-data-files', sum(data, now, count)],
    ['total-delete-files', sum(deletes, now, count)],
    ['total-position-deletes', sum(deletes, now, records)],
    ['total-equality-deletes', 0],
    ['total-files-size', sum(data, now, (f) => f.size) + sum(deletes, now, (f) => f.size)],
  ];
  return Object.fromEntries(fields.map(([k, v]) => [k, String(v)]));
}
