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
