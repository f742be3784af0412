import type { EmulatorContext } from "../core/context";
import { randomString } from "../core/random";
import { upsertMetadata } from "../storage/metadata";
import { ensureTable, getTable, parseTableId } from "../storage/tables";
import { asSentence, goJSONStrings, goQuote } from "./gofmt";
import { closeSinkFiles, openSinkFile } from "./files";
import { isoTime } from "./ids";
import { sinkKey } from "./store";
import { streamState, type SinkRecord } from "./state";
import { TaskFailure } from "./tasks";
import type { MetadataEntry } from "../storage/state";

// The Keboola side of a table sink, done when the sink becomes active or is modified through the
// API (create, update, settings update, enable): the bucket and table are created when missing
// (all columns as strings, in mapping order, the primary key of the mapping's primaryKey columns), an existing table must have exactly
// the mapping's columns, and the sink gets a new Storage token. Deactivation (disable, delete)
// removes the token. The table, made or found, is marked with metadata of provider `stream`:
// KBC.stream.sink.id and KBC.stream.source.id (keboola/keboola-as-code
// internal/pkg/service/stream/sink/type/tablesink/keboola/bridge/table.go: ensureTableExists
// calls addTableMetadata after the get or create, before the columns are checked).

/**
 * keboola.ParseTableID as the request validation uses it; returns the error text (without the
 * `invalid "tableId" value "..."` prefix) or undefined.
 */
export function tableIdError(tableId: string): string | undefined {
  if (tableId === "") return "table ID cannot be empty";
  const parts = tableId.split(".");
  if (parts.length !== 3) return `invalid table ID ${goQuote(tableId)}: unexpected number of fragments`;
  const bucketId = `${parts[0]}.${parts[1]}`;
  if (parts[0] !== "in" && parts[0] !== "out") return `invalid bucket ID ${goQuote(bucketId)}: unexpected stage ${goQuote(parts[0])}`;
  if (parts[1] === "" || parts[1] === "c-") return `invalid bucket ID ${goQuote(bucketId)}: bucket ID cannot be empty`;
  if (parts[2] === "") return `invalid table ID ${goQuote(tableId)}: table ID cannot be empty`;
  return undefined;
}

/** Creates the bucket and table when missing, checks an existing table; throws TaskFailure. */
export function ensureSinkTable(ctx: EmulatorContext, sink: SinkRecord): void {
  const names = sink.table.mapping.columns.map((c) => c.name);
  const primaryKey = sink.table.mapping.columns.filter((c) => c.primaryKey).map((c) => c.name);
  const tableId = sink.table.tableId;
  const existing = getTable(ctx, sink.branchId, tableId);
  if (!existing) {
    const duplicates = names.filter((n, i) => names.indexOf(n) !== i);
    if (duplicates.length > 0) {
      // Storage API validation of the table definition.
      throw new TaskFailure(`Cannot create table "${parseTableId(tableId)?.name ?? tableId}": duplicate column names: ${[...new Set(duplicates)].join(", ")}.`);
    }
    markSinkTable(ctx, ensureTable(ctx, sink.branchId, tableId, names, primaryKey), sink);
    return;
  }
  markSinkTable(ctx, existing, sink);
  if (JSON.stringify(existing.columns) !== JSON.stringify(names)) {
    throw new TaskFailure(
      asSentence(`columns of the table "${tableId}" do not match expected ${goJSONStrings(names)}, found ${goJSONStrings(existing.columns)}`),
    );
  }
  if (JSON.stringify(existing.primaryKey) !== JSON.stringify(primaryKey)) {
    throw new TaskFailure(
      asSentence(`primary key of the table "${tableId}" does not match expected ${goJSONStrings(primaryKey)}, found ${goJSONStrings(existing.primaryKey)}`),
    );
  }
}

function markSinkTable(ctx: EmulatorContext, table: { metadata?: MetadataEntry[] }, sink: SinkRecord): void {
  upsertMetadata(ctx, (table.metadata ??= []), "stream", [
    { key: "KBC.stream.sink.id", value: sink.sinkId },
    { key: "KBC.stream.source.id", value: sink.sourceId },
  ]);
}

/** A new Storage token for the sink (write access to the table's bucket); replaces the previous one. */
export function issueSinkToken(ctx: EmulatorContext, sink: SinkRecord, atMs: number): void {
  const tokenId = String(ctx.nextId("streamSinkToken", 50001));
  const bucketId = parseTableId(sink.table.tableId)?.bucketId ?? sink.table.tableId.split(".").slice(0, 2).join(".");
  streamState(ctx.state).sinkTokens[sinkKey(sink.branchId, sink.sourceId, sink.sinkId)] = {
    tokenId,
    token: `${ctx.state.project.id}-${tokenId}-${randomString(ctx.random, 40)}`,
    description: `[_internal] Stream Sink ${sink.sourceId}/${sink.sinkId}`,
    bucketId,
    created: isoTime(atMs),
  };
}

export function revokeSinkToken(ctx: EmulatorContext, sink: SinkRecord): void {
  delete streamState(ctx.state).sinkTokens[sinkKey(sink.branchId, sink.sourceId, sink.sinkId)];
}

/** Whether a sink becomes active (created, enabled, undeleted) or an active one changes. */
export type SinkSave = "activation" | "modification";

/**
 * A sink becomes active or an active one changes: it gets a new token and a new file (a change
 * rotates: the writing file is closed).
 */
export function sinkActivated(ctx: EmulatorContext, sink: SinkRecord, nowMs: number, save: SinkSave): void {
  issueSinkToken(ctx, sink, nowMs);
  openSinkFile(ctx, sink, nowMs, save === "modification");
}

/** A sink stops being active (disabled, deleted): its token is removed, its writing files closed. */
export function sinkDeactivated(ctx: EmulatorContext, sink: SinkRecord, nowMs: number): void {
  revokeSinkToken(ctx, sink);
  closeSinkFiles(ctx, sink, nowMs);
}
