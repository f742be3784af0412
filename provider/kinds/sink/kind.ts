import { z } from "zod";
import { sinkDisabledDirectly, type StreamApi, type StreamSink } from "../../api/stream";
import { notFoundAsUndefined, asError } from "../../api/errors";
import { createStreamObject } from "../../lifecycle/stream-create";
import { checkWith, containsUnknown, isUnknown, knownFields, whenKnown } from "../../validation/check";
import { branchSchema, MAX_ID_LENGTH, TABLE_ID_PATTERN, descriptionSchema, streamIdSchema, streamObjectId, streamNameSchema } from "../../validation/ids";
import { canonicalColumn, columnsSchema, mappingMismatch, primaryKeyMismatch, sharedTableMismatch, type Column } from "../../validation/columns";
import { templateFailures } from "../../validation/templates";
import { same } from "../../lifecycle/common";
import { isOneOf } from "../../../keboola/json";
import { STREAM_SIGNALS } from "../../../keboola/stream";
import { defineResource, replaces, untracked, type CheckedOf, type InputsOf, type StateOf } from "../../lifecycle/define";
import type { CheckResponse, Handler } from "../../lifecycle/call";
import { PartialFailure, type Props, type ResourceContext } from "../../lifecycle/types";
import { markedLengthFailure, splitMarker, withMarker } from "../../lifecycle/ownership";
import { isNew, streamBranchFailure, sinkSlotFailure } from "../../lifecycle/preflight";
import { show } from "../../validation/messages";
import { confirmExamples, exampleFailures, examplesInput, ExamplesNotConfirmed, sameMapping, sourceTypeFor } from "./examples";
import type { SinkExample } from "../../../keboola/stream-examples";

// A Stream sink: maps each event of its source to a row of a Storage table. Mapping, table,
// name, description, signal filter and enabled state update in place; a new sinkId, source or
// branch replaces it. Before any write that sets the mapping or table, the destination table
// is read: a table whose columns differ from the mapping stops the change (at preview too).

export const sink = defineResource({
  type: "Sink",
  description: "A Stream sink: maps each event of its source to a row of a Storage table.",
  inputs: {
    branchId: replaces(branchSchema),
    sourceId: replaces(z.string().min(1, "must not be empty: pass the sourceId of a Source").max(MAX_ID_LENGTH).describe("The sourceId of the Source whose events this sink writes. Changing it replaces the sink.")),
    sinkId: replaces(streamIdSchema("sink")),
    name: streamNameSchema,
    description: descriptionSchema,
    tableId: z
      .string()
      .regex(TABLE_ID_PATTERN, 'must be a Storage table id like "in.c-events.raw" (stage in|out, bucket "c-<name>", table)')
      .describe("Destination table; created with the mapping's columns when missing."),
    columns: columnsSchema.describe("Column mapping, 1 to 100 columns with unique names."),
    examples: examplesInput,
    allowedSignals: z
      .array(z.enum(STREAM_SIGNALS))
      // No filter and an empty filter are the same: one spelling, so refresh shows no diff.
      .transform((v) => (v.length ? v : undefined))
      .optional()
      .describe("OTLP sources only: the signals this sink receives (empty or unset: all)."),
    enabled: z.boolean().default(true).describe("Disabled sinks receive nothing; re-enabling issues a new sink token."),
    rotateToken: z
      .string()
      .optional()
      .describe("Change this value to rotate the sink's Storage token (disable, then enable)."),
    adoptExisting: untracked(z.boolean().default(false).describe("Take over an existing sink with the same id instead of failing with 409.")),
  },
  // Its Source and Table of the same program, when the program says their ids.
  expected: (facts) => ({ sourceId: facts.sourceId, tableId: facts.declaredTable?.tableId }),
  outputs: {
    sinkId: z.string().describe("The sink id (given, or derived from the name)."),
    projectId: z.number().int().describe("Keboola project id."),
  },
  // Up to 0.2, `branchId` held the numeric branch and the declared one was kept as `branch`.
  upgrade: ({ branch, ...old }) => (typeof branch === "string" ? { ...old, branchId: branch } : old),
});

/** Kept for the manifest's schema: the inputs of a Sink. */
export const sinkInputsSchema = sink.inputs;
export type SinkInputs = InputsOf<typeof sink>;
type Parsed = CheckedOf<typeof sink> & { sinkId: string };
type State = StateOf<typeof sink>;



const declaredTableFact = z.object({ resource: z.string(), columns: z.array(z.string()), primaryKey: z.array(z.string()) });

/**
 * Failure when the destination is a Table declared in this program whose declared columns or
 * primary key do not fit the mapping: known at preview, even before the table exists (the Table
 * is created or changed before the sink, so its declaration is what the sink will meet).
 */
function declaredTableFailure(tableId: string, fact: unknown, columns: Column[]): string | undefined {
  if (fact === undefined || containsUnknown(fact)) return undefined;
  const decl = declaredTableFact.safeParse(fact);
  if (!decl.success) return undefined; // the Table's own check reports its columns
  const at = `${tableId}" (declared by keboola:Table "${decl.data.resource}" in this program`;
  const mismatch = mappingMismatch(tableId, decl.data.columns, columns.map((c) => c.name)) ?? primaryKeyMismatch(tableId, decl.data.primaryKey, columns);
  return mismatch?.replace(`${tableId}"`, `${at})`);
}

const what = (name: string, p: { sourceId: string; sinkId: string }) => `Sink "${p.sourceId}/${p.sinkId}" (resource "${name}")`;

/** A sink as the handler reads it: the service's answer, or (after a create) what was sent with the ids its task reports. */
type SinkView = Pick<StreamSink, "projectId" | "branchId" | "sourceId" | "sinkId" | "type" | "name" | "description" | "allowedSignals" | "table" | "disabled">;

/** What a create or an update sends besides the ids. */
type SinkBody = Required<Pick<StreamSink, "name" | "description" | "allowedSignals" | "table">>;

/**
 * The declaration a sink of the service amounts to: what read records, drift is compared on, and
 * export writes (manifest/export.ts). Columns in canonical form, the owner marker left out, and a
 * sink disabled only with its source counted as enabled.
 */
export function sinkFromRemote(s: SinkView) {
  return {
    sourceId: s.sourceId,
    sinkId: s.sinkId,
    name: s.name,
    description: splitMarker(s.description).text,
    tableId: s.table?.tableId ?? "",
    columns: (s.table?.mapping.columns ?? []).map(canonicalColumn),
    ...(s.allowedSignals && s.allowedSignals.length > 0 ? { allowedSignals: s.allowedSignals.filter((v) => isOneOf(STREAM_SIGNALS, v)) } : {}),
    enabled: !sinkDisabledDirectly(s),
  };
}

/** `examples`: those the service's test endpoint confirmed against this mapping (sink-examples.ts). */
function stateOf(p: Pick<Parsed, "branchId" | "rotateToken" | "adoptExisting">, s: SinkView, examples: SinkExample[] | undefined): State {
  return {
    branchId: p.branchId,
    ...sinkFromRemote(s),
    ...(examples?.length ? { examples } : {}),
    rotateToken: p.rotateToken, // left out of the state when undefined (runtime.ts withIdentity)
    adoptExisting: p.adoptExisting,
    projectId: s.projectId,
  };
}

function apiBody(p: Parsed, owner: string | undefined): SinkBody {
  return {
    name: p.name,
    description: withMarker(p.description, owner),
    // An empty list clears the filter, so it is always sent: an unset input means "all signals".
    allowedSignals: p.allowedSignals ?? [],
    table: { type: "keboola", tableId: p.tableId, mapping: { columns: p.columns } },
  };
}

/**
 * Failure when the destination table exists with other columns than the mapping. `check` may ask
 * a recent listing of the bucket (`listed`); a write decision reads the table itself.
 */
async function tableFailure(ctx: ResourceContext, branch: string, tableId: string, columns: Column[], listed = false): Promise<string | undefined> {
  const storage = ctx.client().storage;
  const table = listed ? await storage.findTableListed(branch, tableId) : await storage.findTable(branch, tableId);
  if (!table) return undefined;
  return mappingMismatch(tableId, table.columns, columns.map((c) => c.name)) ?? primaryKeyMismatch(tableId, table.primaryKey ?? [], columns);
}

const sharedTableFact = z.object({ sink: z.string(), columns: z.array(z.looseObject({ name: z.string(), primaryKey: z.boolean().optional() })) });

/**
 * Failure when the destination table does not exist yet and another Sink of this program (the
 * first declared to write it) would create it with other columns.
 */
async function sharedTableFailure(ctx: ResourceContext, p: { branchId: string; tableId: string; columns: Column[] }, fact: unknown): Promise<string | undefined> {
  if (fact === undefined || containsUnknown(fact)) return undefined;
  const other = sharedTableFact.safeParse(fact);
  // Columns the other sink's own check refuses are reported there.
  if (!other.success) return undefined;
  if (await ctx.client().storage.findTableListed(p.branchId, p.tableId)) return undefined; // tableFailure compared it
  return sharedTableMismatch(p.tableId, other.data, p.columns);
}

/** allowedSignals filters OTLP signals; on an HTTP source the service silently ignores it. */
async function signalsFailure(ctx: ResourceContext, p: { branchId: string; sourceId: string; allowedSignals?: string[] }): Promise<string | undefined> {
  if (!p.allowedSignals) return undefined; // the input reads an empty filter as none
  const src = await (await ctx.client().stream()).findSource(p.branchId, p.sourceId);
  if (src?.type !== "http") return undefined;
  return signalsOnHttp(p.sourceId);
}

const signalsOnHttp = (sourceId: string) =>
  `source "${sourceId}" is an HTTP source, which has no signals (the service would ignore them): remove allowedSignals, or point sourceId at an OTLP source`;

function mappingChanged(olds: Props, p: { tableId: string; columns: Column[] }): boolean {
  // A new sink has no recorded tableId: changed. The recorded columns as this version reads them
  // (columns it cannot read count as changed).
  return olds.tableId !== p.tableId || !same(sink.parseState(olds).columns?.map(canonicalColumn), p.columns.map(canonicalColumn));
}

async function setEnabled(stream: StreamApi, p: Parsed, enabled: boolean, label: string): Promise<void> {
  const task = enabled ? await stream.enableSink(p.branchId, p.sourceId, p.sinkId) : await stream.disableSink(p.branchId, p.sourceId, p.sinkId);
  await stream.runTask(task, label);
}

/** Brings an existing sink to the declared state, writing only what differs. */
async function converge(ctx: ResourceContext, stream: StreamApi, p: Parsed, current: SinkView, rotate: boolean, label: string, owner: string | undefined): Promise<StreamSink> {
  const want = apiBody(p, owner ?? splitMarker(current.description).owner);
  const have = {
    name: current.name,
    description: current.description,
    allowedSignals: current.allowedSignals ?? [],
    table: current.table && {
      type: "keboola",
      tableId: current.table.tableId,
      mapping: { columns: sinkFromRemote(current).columns },
    },
  };
  if (!same(want, have)) {
    if (!same(want.table, have.table)) {
      const failure = await tableFailure(ctx, p.branchId, p.tableId, p.columns);
      if (failure) throw new Error(`${label}: ${failure}`);
    }
    await stream.runTask(await stream.updateSink(p.branchId, p.sourceId, p.sinkId, { ...want, changeDescription: "Updated by Pulumi." }), label).finally(() => ctx.client().storage.forgetTable(p.branchId, p.tableId));
  }
  // A sink disabled only with its source counts as enabled: the source's enable brings it back.
  const isEnabled = !sinkDisabledDirectly(current);
  if (rotate && p.enabled) {
    if (isEnabled) await setEnabled(stream, p, false, label);
    await setEnabled(stream, p, true, label);
  } else if (isEnabled !== p.enabled) {
    await setEnabled(stream, p, p.enabled, label);
  }
  return stream.getSink(p.branchId, p.sourceId, p.sinkId);
}

export const handler: Handler<typeof sink> = {
  async check(req): Promise<CheckResponse> {
    const { olds, news } = req;
    const { value, failures } = checkWith(sink, news, sink.expectedOf(req.call.facts));
    if (!value) {
      // Template errors are worth reporting even when another input is wrong.
      const cols = news.columns;
      if (Array.isArray(cols)) failures.push(...(await templateFailures(cols)));
      return { inputs: news, failures };
    }
    // Each check below runs on the inputs it needs when they are known, whatever else is unknown
    // (the source is usually a Source of the same program, its id unknown at a first preview).
    const sinkId = streamObjectId(value.sinkId, value.name, olds.sinkId);
    const p = { ...value, sinkId };
    const columns = whenKnown(value.columns);
    const templatesFail = isUnknown(value.columns) ? [] : await templateFailures(value.columns);
    failures.push(...templatesFail);
    const tooLong = markedLengthFailure("description", value.description, req.call.owner, 4096);
    if (tooLong) failures.push(tooLong);
    if (sinkId === "") {
      failures.push({ property: "name", reason: `${show(value.name)} has no Latin letter or digit to derive the sink id from (the service would refuse it): set sinkId, e.g. sinkId: "raw-events"` });
    }
    const facts = req.call.facts;
    const signals = whenKnown(value.allowedSignals);
    if (signals?.length && facts.sourceType === "http") {
      // The Source is declared in this program: its type is known before it exists.
      failures.push({ property: "allowedSignals", reason: signalsOnHttp(value.sourceId) });
    }
    const at = knownFields(p, ["branchId", "sourceId"]);
    if (failures.length === 0 && at && signals !== undefined && !facts.sourceType) {
      const failure = await signalsFailure(req, { ...at, allowedSignals: signals });
      if (failure) failures.push({ property: "allowedSignals", reason: failure });
    }
    // The branch, and a free sink id in a source with room: a source of this program not created
    // yet (its id unknown) has no sink yet but those this program declares before this one.
    const slot = knownFields(p, ["branchId", "sinkId", "adoptExisting"]);
    if (failures.length === 0 && isUnknown(p.branchId)) {
      const branch = await streamBranchFailure(req, p.branchId);
      if (branch) failures.push(branch);
    }
    if (failures.length === 0 && slot && !isUnknown(value.name)) {
      const branch = await streamBranchFailure(req, slot.branchId);
      const taken = branch ?? (isNew(olds, { branchId: slot.branchId, sourceId: value.sourceId, sinkId: slot.sinkId }) ? await sinkSlotFailure(req, { ...slot, sourceId: value.sourceId }, req.call.owner, facts, value.sinkId ? "sinkId" : "name") : undefined);
      if (taken) failures.push(taken);
    }
    const mapping = knownFields(p, ["tableId", "branchId"]);
    if (mapping && columns && facts.declaredTable !== undefined) {
      const failure = declaredTableFailure(mapping.tableId, facts.declaredTable, columns);
      if (failure) failures.push({ property: "columns", reason: failure });
    } else if (failures.length === 0 && mapping && columns && mappingChanged(olds, { tableId: mapping.tableId, columns })) {
      const target = { ...mapping, columns };
      const failure = (await tableFailure(req, target.branchId, target.tableId, target.columns, true)) ?? (await sharedTableFailure(req, target, facts.sharedTable));
      if (failure) failures.push({ property: "columns", reason: failure });
    }
    // The examples, against the new mapping with the service's rules (a template that does not
    // compile is reported above already); nothing is sent. The source's type: the program's
    // Source, else the service's source, else each example as the event it is.
    const examples = whenKnown(value.examples);
    if (examples?.length && columns && templatesFail.length === 0 && !containsUnknown(value.allowedSignals)) {
      const sourceType = await sourceTypeFor(req, facts.sourceType, facts.declared ? undefined : at);
      failures.push(...exampleFailures(sourceType, { columns, ...(signals ? { allowedSignals: signals } : {}) }, examples));
    }
    return { inputs: { ...news, ...p }, failures };
  },

  async create(req) {
    const { inputs } = req;
    const p: Parsed = { ...inputs, sinkId: streamObjectId(inputs.sinkId, inputs.name) };
    const stream = await req.client().stream();
    const label = what(req.call.name, p);
    const owner = req.call.owner;
    const failure = (await signalsFailure(req, p)) ?? (await tableFailure(req, p.branchId, p.tableId, p.columns));
    if (failure) throw new Error(`${label}: ${failure}`);

    const body = { sinkId: p.sinkId, type: "table" as const, ...apiBody(p, owner) };
    const leftBehind = (left: SinkView, err: Error): never => {
      // The sink exists even though a step failed: keep tracking it rather than orphan it (its
      // examples not confirmed, so the next `up` checks them).
      throw new PartialFailure(err.message, idOf(left), stateOf(p, left, undefined));
    };
    // The service creates the table with the sink: a listing of its bucket is stale from now on.
    const forget = () => req.client().storage.forgetTable(p.branchId, p.tableId);
    forget();
    const created = await createStreamObject<SinkView>({
      label,
      where: `in source "${p.sourceId}" of branch ${p.branchId}`,
      owner,
      adoptExisting: p.adoptExisting,
      find: () => stream.findSink(p.branchId, p.sourceId, p.sinkId),
      ownerOf: (s) => splitMarker(s.description).owner,
      create: () => stream.createSink(p.branchId, p.sourceId, body),
      runTask: (task) => stream.runTask(task, label),
      fromTask: ({ outputs: o }) =>
        o?.projectId !== undefined && o.branchId !== undefined
          ? { ...body, sourceId: p.sourceId, projectId: o.projectId, branchId: o.branchId }
          : undefined,
      leftBehind,
      fix: "Choose another sinkId (or name), or set adoptExisting: true to take this sink over (it is then brought to the declared state).",
    }).finally(forget);
    let current = created.object;
    if (created.existed || !p.enabled) {
      try {
        current = await converge(req, stream, p, current, false, label, owner);
      } catch (err) {
        leftBehind(current, asError(err));
      }
    }
    return { id: idOf(current), outs: stateOf(p, current, await confirmed(req, p, current, [], label)) };
  },

  async read(req) {
    const { id, recorded } = req;
    const stream = await req.client().stream();
    const { branchId, sourceId, sinkId } = addressed(id, recorded);
    const s = await stream.findSink(branchId, sourceId, sinkId);
    if (!s) return { id: "" };
    // The service keeps no examples: those recorded stay, confirmed while the mapping stays the same.
    const examples = sameMapping(recorded, sinkFromRemote(s)) ? recorded.examples : undefined;
    const state = stateOf({ branchId, rotateToken: recorded.rotateToken, adoptExisting: recorded.adoptExisting ?? false }, s, examples);
    const { projectId: _project, ...inputs } = state;
    return { id: idOf(s), props: state, inputs };
  },

  async update(req) {
    const { olds, news } = req;
    const p: Parsed = { ...news, sinkId: streamObjectId(news.sinkId, news.name, olds.sinkId) };
    const stream = await req.client().stream();
    const label = what(req.call.name, p);
    const current = await stream.findSink(p.branchId, p.sourceId, p.sinkId);
    if (!current) throw new Error(`${label} no longer exists: run \`pulumi refresh\` so Pulumi recreates it`);
    const rotate = olds.rotateToken !== news.rotateToken && news.rotateToken !== undefined;
    const updated = await converge(req, stream, p, current, rotate, label, req.call.owner);
    // Examples the service confirmed against the recorded mapping need no new request while it stays.
    const before = sameMapping(olds, p) ? (olds.examples ?? []) : [];
    return { outs: stateOf(p, updated, await confirmed(req, p, updated, before, label)) };
  },

  async delete(req) {
    const { id, recorded } = req;
    const stream = await req.client().stream();
    const p = addressed(id, recorded);
    // Already gone (or its source is): nothing to do.
    const task = await notFoundAsUndefined(stream.deleteSink(p.branchId, p.sourceId, p.sinkId));
    if (task) await stream.runTask(task, what(req.call.name, p));
  },
};

/**
 * After a create or update: the sink's examples posted to its source's test endpoint (those not
 * confirmed yet against this mapping), the confirmed ones for state. When one is not confirmed the
 * operation fails, the sink recorded as it is with the examples that were (sink-examples.ts), so
 * the next `up` checks the others again.
 */
async function confirmed(ctx: ResourceContext, p: Parsed, current: SinkView, before: SinkExample[], label: string): Promise<SinkExample[] | undefined> {
  if (!p.examples) return undefined;
  try {
    return await confirmExamples(await ctx.client().stream(), p, { columns: p.columns, ...(p.allowedSignals ? { allowedSignals: p.allowedSignals } : {}) }, p.examples, before);
  } catch (err) {
    if (!(err instanceof ExamplesNotConfirmed)) throw err;
    throw new PartialFailure(`${label}: ${err.message}`, idOf(current), stateOf(p, current, err.confirmed));
  }
}

/** The sink a resource addresses: as its state records it, else as its id (`branch/source/sink`) names it. */
function addressed(id: string, recorded: Partial<State>): { branchId: string; sourceId: string; sinkId: string } {
  const parts = id.split("/");
  return { branchId: recorded.branchId ?? "default", sourceId: recorded.sourceId ?? parts[parts.length - 2] ?? "", sinkId: recorded.sinkId ?? parts[parts.length - 1] ?? id };
}

const idOf = (s: SinkView) => `${s.branchId}/${s.sourceId}/${s.sinkId}`;

export const definition = sink;
