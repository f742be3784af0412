import type { EmulatorContext } from "../../emulator/core/context";
import { putFile } from "../../emulator/stream/files";
import { putStats } from "../../emulator/stream/stats";
import { streamState, type FileRecord, type StatsValue, type StorageLevel } from "../../emulator/stream/state";
import { isRecord, parseJson } from "../../keboola/json";
import { parseByteSize } from "../../keboola/quantities";
import type { EtcdKV } from "./stream-cases";

// A recorded case's initial etcd state (initial-etcd-kvs.txt) put into the emulator: the Go
// harness writes these keys into the real service's etcd before the case. The cases use the
// storage model only (files and statistics of sinks); each key is mapped onto the emulator's
// records of the same thing (emulator/stream/state.ts). An unknown key stops the replay, so a
// case is never judged on a setup the replay skipped.

const FILE = /^storage\/file\/all\/(\d+)\/(\d+)\/([^/]+)\/([^/]+)\/([^/]+)$/;
/** The same files listed once more by level: an index the emulator does not need. */
const FILE_LEVEL_INDEX = /^storage\/file\/level\/(local|staging|target)\//;
const STATS = /^storage\/stats\/(local|staging|target)\/(\d+)\/(\d+)\/([^/]+)\/([^/]+)\/([^/]+)\/(.+)$/;
const STATS_RESET = /^storage\/stats\/target\/(\d+)\/(\d+)\/([^/]+)\/([^/]+)\/~reset$/;

type Json = Record<string, unknown>;

const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === "number" ? v : undefined);
const bytes = (v: unknown): number => (typeof v === "string" ? Number(parseByteSize(v)) : 0);

function statsValue(json: Json): StatsValue {
  const out: StatsValue = { recordsCount: num(json.recordsCount) ?? 0, uncompressedSize: bytes(json.uncompressedSize), compressedSize: bytes(json.compressedSize) };
  if (num(json.slicesCount) !== undefined) out.slicesCount = num(json.slicesCount);
  if (str(json.firstRecordAt)) out.firstRecordAt = str(json.firstRecordAt);
  if (str(json.lastRecordAt)) out.lastRecordAt = str(json.lastRecordAt);
  if (json.stagingSize !== undefined) out.stagingSize = bytes(json.stagingSize);
  return out;
}

const FILE_STATES = ["writing", "closing", "importing", "imported"] as const;
const LEVELS = ["local", "staging", "target"] as const satisfies readonly StorageLevel[];

function fileRecord(m: RegExpExecArray, json: Json): FileRecord {
  const state = FILE_STATES.find((s) => s === json.state);
  if (!state) throw new Error(`unknown file state ${JSON.stringify(json.state)}`);
  const file: FileRecord = { branchId: Number(m[2]), sourceId: m[3], sinkId: m[4], openedAt: m[5], state };
  for (const field of ["closingAt", "importingAt", "importedAt", "retryReason", "retryAfter"] as const) {
    const value = str(json[field]);
    if (value !== undefined) file[field] = value;
  }
  if (num(json.retryAttempt) !== undefined) file.retryAttempt = num(json.retryAttempt);
  return file;
}

export function applyEtcdSnapshot(ctx: EmulatorContext, kvs: EtcdKV[]): void {
  for (const { key, value } of kvs) {
    if (FILE_LEVEL_INDEX.test(key)) continue;
    const json = parseJson(value);
    if (!isRecord(json)) throw new Error(`etcd key ${key}: the value is not a JSON object`);
    const file = FILE.exec(key);
    if (file) {
      putFile(ctx, fileRecord(file, json));
      continue;
    }
    const reset = STATS_RESET.exec(key);
    if (reset) {
      const resetAt = str(json.resetAt);
      if (!resetAt) throw new Error(`etcd key ${key}: a reset without resetAt`);
      streamState(ctx.state).statsResets[`${reset[2]}/${reset[3]}/${reset[4]}`] = { resetAt, value: statsValue(json) };
      continue;
    }
    const stats = STATS.exec(key);
    // STATS matches only these levels.
    const level = LEVELS.find((l) => l === stats?.[1]);
    if (stats && level) {
      putStats(ctx, {
        level,
        branchId: Number(stats[3]),
        sourceId: stats[4],
        sinkId: stats[5],
        fileOpenedAt: stats[6],
        slice: stats[7],
        value: statsValue(json),
      });
      continue;
    }
    throw new Error(`the replay cannot put etcd key ${key} into the emulator`);
  }
}
