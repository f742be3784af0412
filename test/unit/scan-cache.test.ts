import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SCAN_ENTRY_MAX_AGE_MS, scanCacheDir, scanCsvKept } from "../../provider/validation/scan-cache";
import { CsvProblem } from "../../provider/validation/storage";

// A CSV scan kept on disk between processes (each call of scanCsvKept is what a new provider
// process does: it keeps nothing in memory). A kept answer is recognised by editing the kept entry:
// the cache answers what it holds, a scan answers the file.

const root = mkdtempSync(join(tmpdir(), "scan-cache-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const fresh = () => {
  const dir = join(root, `case${n++}`);
  mkdirSync(dir);
  return { cache: join(dir, "cache"), csv: join(dir, "data.csv") };
};
const write = (file: string, text: string) => writeFileSync(file, text);
const entries = (cache: string) => (existsSync(cache) ? readdirSync(cache) : []);
/** The test's files are brand new: trust them as if last changed a minute before the scan. */
const settled = { racyMs: -60_000 };
const sha = (text: string) => createHash("sha256").update(text).digest("hex");

/** Marks the one kept entry, so an answer from it is told apart from a scan. */
function markEntry(cache: string, rows: number): void {
  const [name] = entries(cache);
  const file = join(cache, name);
  const entry = JSON.parse(readFileSync(file, "utf8")) as { scan: { rows: number } };
  entry.scan.rows = rows;
  writeFileSync(file, JSON.stringify(entry));
}

describe("scanCsvKept", () => {
  it("answers a file it scanned before from the disk, without reading it", async () => {
    const { cache, csv } = fresh();
    write(csv, "id,name\n1,a\n2,b\n");
    const first = await scanCsvKept(csv, 0, { dir: cache, ...settled });
    expect(first).toMatchObject({ rows: 2, sha256: sha("id,name\n1,a\n2,b\n"), header: ["id", "name"] });
    expect(entries(cache)).toHaveLength(1);
    expect(statSync(cache).mode & 0o777).toBe(0o700);
    markEntry(cache, 99);
    expect((await scanCsvKept(csv, 0, { dir: cache, ...settled })).rows).toBe(99);
    // Another slice size is another scan (the cuts differ).
    expect((await scanCsvKept(csv, 4, { dir: cache, ...settled })).rows).toBe(2);
  });

  it("scans again a file rewritten with the same size and its old mtime put back (ctime shows the write)", async () => {
    const { cache, csv } = fresh();
    write(csv, "id,name\n1,a\n");
    utimesSync(csv, 1_700_000_000, 1_700_000_000); // a whole second, which utimes sets back exactly
    const before = statSync(csv, { bigint: true });
    await scanCsvKept(csv, 0, { dir: cache, ...settled });
    markEntry(cache, 99);
    write(csv, "id,name\n1,b\n");
    utimesSync(csv, 1_700_000_000, 1_700_000_000);
    expect(statSync(csv, { bigint: true })).toMatchObject({ size: before.size, mtimeNs: before.mtimeNs, ino: before.ino });
    const again = await scanCsvKept(csv, 0, { dir: cache, ...settled });
    expect(again).toMatchObject({ rows: 1, sha256: sha("id,name\n1,b\n") });
  });

  it("keeps no scan of a file changed just before it (the racy case), nor a CSV it refuses", async () => {
    const { cache, csv } = fresh();
    write(csv, "id,name\n1,a\n");
    expect((await scanCsvKept(csv, 0, { dir: cache })).rows).toBe(1); // default: 2 s
    expect(entries(cache)).toEqual([]);
    write(csv, 'id,name\n1,"a\n');
    await expect(scanCsvKept(csv, 0, { dir: cache, ...settled })).rejects.toBeInstanceOf(CsvProblem);
    expect(entries(cache)).toEqual([]);
  });

  it("scans anew over an unreadable or foreign entry, and replaces it", async () => {
    const { cache, csv } = fresh();
    write(csv, "id\n1\n");
    await scanCsvKept(csv, 0, { dir: cache, ...settled });
    const [name] = entries(cache);
    writeFileSync(join(cache, name), "{not json");
    expect((await scanCsvKept(csv, 0, { dir: cache, ...settled })).rows).toBe(1);
    expect(JSON.parse(readFileSync(join(cache, name), "utf8"))).toMatchObject({ version: 1, scan: { rows: 1 } });
    writeFileSync(join(cache, name), JSON.stringify({ version: 2 }));
    expect((await scanCsvKept(csv, 0, { dir: cache, ...settled })).rows).toBe(1);
  });

  it("answers from an entry only for the file and slice size it records (an entry copied under another's name is scanned over)", async () => {
    const { cache, csv } = fresh();
    const other = join(cache, "..", "other.csv");
    write(csv, "id\n1\n");
    write(other, "id\n1\n2\n");
    await scanCsvKept(csv, 0, { dir: cache, ...settled });
    const [mine] = entries(cache);
    await scanCsvKept(other, 0, { dir: cache, ...settled });
    const [theirs] = entries(cache).filter((f) => f !== mine);
    // The other file's entry under this file's name: same size and times would not make it this file's.
    const entry = JSON.parse(readFileSync(join(cache, theirs), "utf8")) as { file: unknown };
    entry.file = (JSON.parse(readFileSync(join(cache, mine), "utf8")) as { file: unknown }).file;
    writeFileSync(join(cache, mine), JSON.stringify(entry));
    expect((await scanCsvKept(csv, 0, { dir: cache, ...settled })).rows).toBe(1);
    // This file's entry with another slice size recorded in it.
    await scanCsvKept(csv, 3, { dir: cache, ...settled });
    const sliced = entries(cache).filter((f) => f !== mine && f !== theirs)[0];
    const withCuts = JSON.parse(readFileSync(join(cache, sliced), "utf8")) as { sliceBytes: number; scan: { rows: number } };
    withCuts.scan.rows = 99;
    writeFileSync(join(cache, mine), JSON.stringify(withCuts));
    expect((await scanCsvKept(csv, 0, { dir: cache, ...settled })).rows).toBe(1);
  });

  it("removes entries unused for 30 days when it writes one, and keeps the ones it answers from", async () => {
    const { cache, csv } = fresh();
    const day = 24 * 3600 * 1000;
    expect(SCAN_ENTRY_MAX_AGE_MS).toBe(30 * day);
    const daysAgo = (days: number) => (Date.now() - days * day) / 1000;
    const old = daysAgo(30) - 60;
    mkdirSync(cache);
    for (const [name, at] of [["abandoned.json", old], ["left-over.json.123.tmp", old], ["recent.json", daysAgo(29)]] as const) {
      writeFileSync(join(cache, name), "{}");
      utimesSync(join(cache, name), at, at);
    }
    write(csv, "id\n1\n");
    await scanCsvKept(csv, 0, { dir: cache, ...settled }); // a write prunes (once per process and folder)
    const [entry, ...others] = entries(cache).filter((f) => f !== "recent.json");
    expect(entries(cache)).toContain("recent.json");
    expect(others).toEqual([]);
    expect(entry).toMatch(/^[0-9a-f]{64}\.json$/);
    // Readable by its owner alone: it holds the file's header and path.
    expect(statSync(join(cache, entry)).mode & 0o777).toBe(0o600);
    // Once per process and folder: an old file that appears later stays until the next process.
    writeFileSync(join(cache, "later.json"), "{}");
    utimesSync(join(cache, "later.json"), old, old);
    await scanCsvKept(csv, 5, { dir: cache, ...settled });
    expect(entries(cache)).toContain("later.json");
    utimesSync(join(cache, entry), old, old);
    expect((await scanCsvKept(csv, 0, { dir: cache, ...settled })).rows).toBe(1);
    expect(statSync(join(cache, entry)).mtimeMs).toBeGreaterThan(Date.now() - 60_000); // answered: in use
  });

  it("lives under KEBOOLA_PULUMI_CACHE or the user's cache folder, and KEBOOLA_PULUMI_SCAN_CACHE=0 turns it off", () => {
    expect(scanCacheDir({ KEBOOLA_PULUMI_CACHE: "/c" })).toBe("/c/csv-scans");
    expect(scanCacheDir({ XDG_CACHE_HOME: "/x" })).toBe("/x/keboola-pulumi/csv-scans");
    expect(scanCacheDir({ KEBOOLA_PULUMI_CACHE: "/c", KEBOOLA_PULUMI_SCAN_CACHE: "0" })).toBeUndefined();
  });
});
