// A data file manifest entry (DataFileManifest values): one data file row, positional, as
// [id, path, format, recordCount, fileSizeBytes, footerSize, rowIdStart]. The commit plan writes entries,
// listings read them; this is the one place that knows the order.
import type { FileId, SnapshotId } from './ids.js';
import type { DataFileRow, ManifestFile } from './rows.js';

export function manifestFile(id: FileId, row: Omit<DataFileRow, 'end'>): ManifestFile {
  return [id, row.path, row.format, row.recordCount, row.fileSizeBytes, row.footerSize, row.rowIdStart];
}

/** The row a manifest entry stands for, with the end the file index gives it. */
export function manifestRow(file: ManifestFile, end: SnapshotId | null): DataFileRow {
  const [, path, format, recordCount, fileSizeBytes, footerSize, rowIdStart] = file;
  return { path, format, recordCount, fileSizeBytes, footerSize, rowIdStart, end };
}
