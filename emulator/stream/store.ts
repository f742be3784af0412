import type { EmulatorContext } from "../core/context";
import { stateHash } from "./ids";
import { streamState, type ByRecord, type SinkRecord, type SourceRecord, type VersionRecord } from "./state";

// Access to sources and sinks in the stream state. "Active" means not soft-deleted (disabled
// entities are active: they are listed and can be read and changed).

// The service's limits, shared with the provider's preview checks.
export { MAX_SINKS_PER_SOURCE, MAX_SOURCES_PER_BRANCH } from "../../keboola/stream";

export const sourceKey = (branchId: number, sourceId: string) => `${branchId}/${sourceId}`;
export const sinkKey = (branchId: number, sourceId: string, sinkId: string) => `${branchId}/${sourceId}/${sinkId}`;

/** The source, soft-deleted ones included. */
export function findSource(ctx: EmulatorContext, branchId: number, sourceId: string): SourceRecord | undefined {
  return streamState(ctx.state).sources[sourceKey(branchId, sourceId)];
}

export function activeSource(ctx: EmulatorContext, branchId: number, sourceId: string): SourceRecord | undefined {
  const s = findSource(ctx, branchId, sourceId);
  return s && !s.deleted ? s : undefined;
}

export function activeSources(ctx: EmulatorContext, branchId: number): SourceRecord[] {
  return Object.values(streamState(ctx.state).sources).filter((s) => s.branchId === branchId && !s.deleted);
}

/** The sink, soft-deleted ones included. */
export function findSink(ctx: EmulatorContext, branchId: number, sourceId: string, sinkId: string): SinkRecord | undefined {
  return streamState(ctx.state).sinks[sinkKey(branchId, sourceId, sinkId)];
}

export function activeSink(ctx: EmulatorContext, branchId: number, sourceId: string, sinkId: string): SinkRecord | undefined {
  const s = findSink(ctx, branchId, sourceId, sinkId);
  return s && !s.deleted ? s : undefined;
}

/** Sinks of a source; `deleted` also returns the soft-deleted ones. */
export function sinksOf(ctx: EmulatorContext, branchId: number, sourceId: string, deleted = false): SinkRecord[] {
  return Object.values(streamState(ctx.state).sinks).filter(
    (s) => s.branchId === branchId && s.sourceId === sourceId && (deleted || !s.deleted),
  );
}

/** Fields of an entity that make up its version hash (not the version, creation or actor data). */
function hashedState(entity: SourceRecord | SinkRecord): unknown {
  const { version: _version, created: _created, ...rest } = entity;
  return rest;
}

/** Increments the version: number + 1, new hash, description, time and actor. */
export function nextVersion(entity: SourceRecord | SinkRecord, at: string, by: ByRecord, description: string): VersionRecord {
  return {
    number: (entity.version?.number ?? 0) + 1,
    hash: stateHash(hashedState(entity)),
    description,
    at,
    by,
  };
}

// ---- Versions ---------------------------------------------------------------------------------
// The real repository writes an entity's version key (`definition/<kind>/version/.../<number>`) on
// every save of the entity while it is not deleted (keboola-as-code
// internal/pkg/service/stream/definition/repository/{source,sink}/*_repo.go, `save`). A save
// without a new number (a sink disabled with its source) overwrites that number's state.

const versionKey = (n: number) => String(n);

/**
 * Saves the current state of the source and of its sinks that are not deleted as their current
 * versions. Called after every change (a task's operation, a secret rotation): an object the
 * change did not touch is saved unchanged, which writes what its version already holds.
 */
export function saveVersions(ctx: EmulatorContext, branchId: number, sourceId: string): void {
  const state = streamState(ctx.state);
  const source = activeSource(ctx, branchId, sourceId);
  if (source) (state.sourceVersions[sourceKey(branchId, sourceId)] ??= {})[versionKey(source.version.number)] = structuredClone(source);
  for (const sink of sinksOf(ctx, branchId, sourceId)) {
    (state.sinkVersions[sinkKey(branchId, sourceId, sink.sinkId)] ??= {})[versionKey(sink.version.number)] = structuredClone(sink);
  }
}

/** The saved versions of a source, by number ascending. */
export function sourceVersions(ctx: EmulatorContext, branchId: number, sourceId: string): SourceRecord[] {
  return Object.values(streamState(ctx.state).sourceVersions[sourceKey(branchId, sourceId)] ?? {}).sort((a, b) => a.version.number - b.version.number);
}

/** The saved versions of a sink, by number ascending. */
export function sinkVersions(ctx: EmulatorContext, branchId: number, sourceId: string, sinkId: string): SinkRecord[] {
  return Object.values(streamState(ctx.state).sinkVersions[sinkKey(branchId, sourceId, sinkId)] ?? {}).sort((a, b) => a.version.number - b.version.number);
}

/** Removes the versions of a purged source and of its sinks (`Purge` deletes the version keys too). */
export function purgeVersions(ctx: EmulatorContext, branchId: number, sourceId: string): void {
  const state = streamState(ctx.state);
  delete state.sourceVersions[sourceKey(branchId, sourceId)];
  const prefix = `${sourceKey(branchId, sourceId)}/`;
  for (const key of Object.keys(state.sinkVersions)) if (key.startsWith(prefix)) delete state.sinkVersions[key];
}
