// The Storage service's part of the emulator state: plain JSON, so it can be saved to a file.
// Buckets and tables are keyed by `<branchId>/<id>`: each branch has its own storage.

export interface BucketRecord {
  id: string; // e.g. in.c-events
  branchId: number;
  stage: "in" | "out";
  name: string; // e.g. c-events
  displayName: string;
  description: string;
  created: string;
}

export interface TableRecord {
  id: string; // e.g. in.c-events.raw
  branchId: number;
  bucketId: string;
  name: string;
  columns: string[];
  primaryKey: string[];
  /** Data rows, each with one value per column, in column order. */
  rows: string[][];
  created: string;
  lastImportDate: string | null;
  lastChangeDate: string | null;
}

export interface StorageState {
  buckets: Record<string, BucketRecord>;
  tables: Record<string, TableRecord>;
}

export function initialStorageState(): StorageState {
  return { buckets: {}, tables: {} };
}
