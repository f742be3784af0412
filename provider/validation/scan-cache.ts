import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync, type BigIntStats } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { z } from "zod";
import { csvScanSchema, scanCsv, type CsvScan } from "./storage";

// A table's CSV scan kept on disk between processes. Check reads the whole file at every preview
// (its hash, RFC 4180, the header, the slice cuts), and Pulumi starts a new provider process for
// each command: a no-op preview of a 1 GB file spent ~4 s re-reading it, and `pulumi up` (a
// preview, then the update) read it twice.
//
// A scan is answered again only for the very file it read, as git's index trusts a file's stat:
// same device, inode, size, mtime and ctime (ns). ctime cannot be set by a program (utimes, cp -p
// and rsync -t restore mtime, and change ctime doing so), so any write since the scan shows. The
// racy case is a write within the same timestamp tick as the scan: the stat would not change. So a
// scan is kept only when the file's last change was `racyMs` or more before the scan began, and its
// stat is the same after the scan as before. `KEBOOLA_PULUMI_SCAN_CACHE=0` turns the cache off (for
// a file system whose ctime does not follow writes).

/** The cache folder: `KEBOOLA_PULUMI_CACHE` (as the Pulumi CLI's build uses it), else the user's cache folder; undefined when turned off. */
export function scanCacheDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.KEBOOLA_PULUMI_SCAN_CACHE === "0") return undefined;
  const root = env.KEBOOLA_PULUMI_CACHE ?? join(env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "keboola-pulumi");
  return join(root, "csv-scans");
}

/** What a scan is kept under: the file as the file system identifies it. */
const identitySchema = z.object({ dev: z.string(), ino: z.string(), size: z.string(), mtimeNs: z.string(), ctimeNs: z.string() });
type Identity = z.infer<typeof identitySchema>;

/** One entry, versioned: an entry of another version (or unreadable) is scanned anew and replaced. */
const entrySchema = z.object({ version: z.literal(1), path: z.string(), sliceBytes: z.number(), file: identitySchema, scan: csvScanSchema });

const identityOf = (st: BigIntStats): Identity => ({ dev: String(st.dev), ino: String(st.ino), size: String(st.size), mtimeNs: String(st.mtimeNs), ctimeNs: String(st.ctimeNs) });
const same = (a: Identity, b: Identity) => a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs;

export interface ScanCacheOptions {
  /** The cache folder (default `scanCacheDir()`; undefined there: no cache). */
  dir?: string;
  /** How long before the scan the file's last change must be for the scan to be kept (default 2 s). */
  racyMs?: number;
}

/**
 * scanCsv, answered from the disk cache when the file is the one last scanned there; a scan that
 * may be kept is written to it. A CSV problem (thrown) is never kept, and the cache's own failures
 * (no folder, a broken entry) only mean a scan.
 */
export async function scanCsvKept(path: string, sliceBytes: number, opts: ScanCacheOptions = {}): Promise<CsvScan> {
  const dir = "dir" in opts ? opts.dir : scanCacheDir();
  if (!dir) return scanCsv(path, sliceBytes);
  const abs = resolve(path);
  const before = identityOf(statSync(abs, { bigint: true }));
  const entryFile = join(dir, `${createHash("sha256").update(`${abs}\0${sliceBytes}`).digest("hex")}.json`);
  const kept = readEntry(entryFile);
  if (kept && kept.path === abs && kept.sliceBytes === sliceBytes && same(kept.file, before)) {
    touch(entryFile);
    return kept.scan;
  }
  const startedNs = BigInt(Date.now()) * 1_000_000n;
  const scan = await scanCsv(abs, sliceBytes);
  const after = identityOf(statSync(abs, { bigint: true }));
  const settled = BigInt(before.ctimeNs) <= startedNs - BigInt(opts.racyMs ?? 2000) * 1_000_000n;
  if (settled && same(before, after)) writeEntry(dir, entryFile, { version: 1, path: abs, sliceBytes, file: before, scan });
  return scan;
}

function readEntry(file: string): z.infer<typeof entrySchema> | undefined {
  try {
    const parsed = entrySchema.safeParse(JSON.parse(readFileSync(file, "utf8")));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined; // none yet, or unreadable
  }
}

/** Written to a temporary name and renamed: a reader sees a whole entry or none. */
function writeEntry(dir: string, file: string, entry: z.infer<typeof entrySchema>): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(entry), { mode: 0o600 });
    renameSync(tmp, file);
    prune(dir);
  } catch {
    // A cache that cannot be written only costs the next process a scan.
  }
}

/** An entry's mtime says when it was last answered (so `prune` keeps the ones in use). */
function touch(file: string): void {
  try {
    const now = new Date();
    utimesSync(file, now, now);
  } catch {
    // gone meanwhile: nothing to keep
  }
}

/** Entries (and left-over temporary files) unused for this long are removed. */
export const SCAN_ENTRY_MAX_AGE_MS = 30 * 24 * 3600 * 1000;
const pruned = new Set<string>();

/** Removes old entries, once per process and folder: an entry is kept per data file ever scanned, so the folder would only grow. */
function prune(dir: string): void {
  if (pruned.has(dir)) return;
  pruned.add(dir);
  const oldest = Date.now() - SCAN_ENTRY_MAX_AGE_MS;
  for (const name of readdirSync(dir)) {
    const file = join(dir, name);
    try {
      // Stryker disable next-line EqualityOperator: `<=` differs only for an entry last used exactly 30 days ago, to the millisecond.
      if (statSync(file).mtimeMs < oldest) rmSync(file);
    } catch {
      // gone meanwhile
    }
  }
}

// In the process, a file's scan is also kept in memory, by path, for the same file (`same`) and
// slice size: check, diff and create of one `up` (and a Table checked twice) read a large file
// once, and calls made while a scan runs wait for it.
const scans = new Map<string, { file: Identity; sliceBytes: number; scan: Promise<CsvScan> }>();

/** scanCsv, once per process for a file that has not changed since, and across processes through the disk cache (scanCsvKept). */
export function scanCsvCached(path: string, sliceBytes = 0): Promise<CsvScan> {
  const file = identityOf(statSync(path, { bigint: true }));
  const hit = scans.get(path);
  if (hit && hit.sliceBytes === sliceBytes && same(hit.file, file)) return hit.scan;
  const scan = scanCsvKept(path, sliceBytes);
  scans.set(path, { file, sliceBytes, scan });
  scan.catch(() => scans.delete(path));
  return scan;
}
