import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import type * as dynamic from "@pulumi/pulumi/dynamic";
import type { StreamApi, StreamSink } from "../api/stream";
import { notFoundAsUndefined } from "../api/errors";
import { createOnce } from "./stream-create";
import { checkWith, containsUnknown, parseChecked } from "../validation/check";
import { branchSchema, MAX_ID_LENGTH, TABLE_ID_PATTERN, descriptionSchema, normalizeId, streamIdSchema, streamNameSchema } from "../validation/ids";
import { canonicalColumn, columnsSchema, mappingMismatch, primaryKeyMismatch, type Column } from "../validation/columns";
import { templateFailures } from "../validation/templates";
import { diffFields, resourceArgs, resourceName, same, withProvider, type ArgsOf } from "./common";
import kindProvider from "../kinds/sink";
import { PartialFailure, type Props, type ResourceContext, type ResourceHandler } from "./types";
import { markedLengthFailure, ownerOf, splitMarker, withMarker } from "./ownership";
import { declareSink, sinkFacts } from "./program";
import { branchFailure, isNew, programFacts, sinkSlotFailure } from "./preflight";
import { show } from "../validation/messages";

// A Stream sink: maps each event of its source to a row of a Storage table. Mapping, table,
// name, description, signal filter and enabled state update in place; a new sinkId, source or
// branch replaces it. Before any write that sets the mapping or table, the destination table
// is read: a table whose columns differ from the mapping stops the change (at preview too).

export const sinkInputsSchema = z
  .object({
    branchId: branchSchema,
    sourceId: z.string().min(1, "must not be empty: pass the sourceId of a Source").max(MAX_ID_LENGTH),
    sinkId: streamIdSchema("sink"),
    name: streamNameSchema,
    description: descriptionSchema,
    tableId: z
      .string()
      .regex(TABLE_ID_PATTERN, 'must be a Storage table id like "in.c-events.raw" (stage in|out, bucket "c-<name>", table)')
      .describe("Destination table; created with the mapping's columns when missing."),
    columns: columnsSchema.describe("Column mapping, 1 to 100 columns with unique names."),
    allowedSignals: z
      .array(z.enum(["logs", "metrics", "traces"]))
      .optional()
      .describe("OTLP sources only: the signals this sink receives (empty or unset: all)."),
    enabled: z.boolean().default(true).describe("Disabled sinks receive nothing; re-enabling issues a new sink token."),
    rotateToken: z
      .string()
      .optional()
      .describe("Change this value to rotate the sink's Storage token (disable, then enable)."),
    adoptExisting: z.boolean().default(false).describe("Take over an existing sink with the same id instead of failing with 409."),
  })
  .strict();

export type SinkInputs = z.input<typeof sinkInputsSchema>;

/** What a Sink has besides its inputs. */
export const sinkOutputsSchema = z.object({
  sinkId: z.string().describe("The sink id."),
  branchId: z.number().int().describe("Numeric id of the branch."),
  projectId: z.number().int().describe("Keboola project id."),
});
type Parsed = z.output<typeof sinkInputsSchema> & { sinkId: string };

export interface SinkArgs extends ArgsOf<SinkInputs> {}

export class Sink extends pulumi.dynamic.Resource {
  declare readonly sinkId: pulumi.Output<string>;
  declare readonly sourceId: pulumi.Output<string>;
  /** Numeric id of the branch. */
  declare readonly branchId: pulumi.Output<number>;
  declare readonly projectId: pulumi.Output<number>;
  declare readonly tableId: pulumi.Output<string>;
  declare readonly columns: pulumi.Output<Column[]>;
  declare readonly enabled: pulumi.Output<boolean>;

  constructor(name: string, args: SinkArgs, opts?: pulumi.CustomResourceOptions) {
    declareSink(name, args);
    const withFacts = { ...args, __program: sinkFacts(args) };
    super(...resourceArgs(kindProvider, "Sink", name, withFacts, ["sinkId", "branchId", "projectId", "branch", "enabled", "description"], [], opts));
  }
}

const MAPPING_FIELDS = ["tableId", "columns"] as const;

function resolveId(parsed: z.output<typeof sinkInputsSchema>, olds: Props): string {
  if (parsed.sinkId) return parsed.sinkId;
  if (typeof olds.sinkId === "string" && olds.sinkId) return olds.sinkId;
  return normalizeId(parsed.name);
}

const what = (props: Props, p: { sourceId: string; sinkId: string }) => `Sink "${p.sourceId}/${p.sinkId}" (resource "${resourceName(props)}")`;

function outputs(p: Parsed, s: StreamSink): Props {
  return {
    branch: p.branchId,
    sourceId: s.sourceId,
    sinkId: s.sinkId,
    name: s.name,
    description: splitMarker(s.description).text,
    tableId: s.table?.tableId,
    columns: (s.table?.mapping.columns ?? []).map(canonicalColumn),
    ...(s.allowedSignals && s.allowedSignals.length > 0 ? { allowedSignals: s.allowedSignals } : {}),
    enabled: !s.disabled,
    ...(p.rotateToken !== undefined ? { rotateToken: p.rotateToken } : {}),
    adoptExisting: p.adoptExisting,
    branchId: s.branchId,
    projectId: s.projectId,
  };
}

function apiBody(p: Parsed, owner: string | undefined): Record<string, unknown> {
  return {
    name: p.name,
    description: withMarker(p.description, owner),
    // An empty list clears the filter, so it is always sent: an unset input means "all signals".
    allowedSignals: p.allowedSignals ?? [],
    table: { type: "keboola", tableId: p.tableId, mapping: { columns: p.columns.map(canonicalColumn) } },
  };
}

/** Failure when the destination table exists with other columns than the mapping. */
async function tableFailure(ctx: ResourceContext, branch: string, tableId: string, columns: Column[]): Promise<string | undefined> {
  const table = await ctx.client().storage.findTable(branch, tableId);
  if (!table) return undefined;
  return mappingMismatch(tableId, table.columns, columns.map((c) => c.name)) ?? primaryKeyMismatch(tableId, table.primaryKey ?? [], columns);
}

/** allowedSignals filters OTLP signals; on an HTTP source the service silently ignores it. */
async function signalsFailure(ctx: ResourceContext, p: { branchId: string; sourceId: string; allowedSignals?: string[] }): Promise<string | undefined> {
  if (!p.allowedSignals || p.allowedSignals.length === 0) return undefined;
  const src = await (await ctx.client().stream()).findSource(p.branchId, p.sourceId);
  if (src?.type !== "http") return undefined;
  return signalsOnHttp(p.sourceId);
}

const signalsOnHttp = (sourceId: string) =>
  `source "${sourceId}" is an HTTP source, which has no signals (the service would ignore them): remove allowedSignals, or point sourceId at an OTLP source`;

function mappingChanged(olds: Props, p: { tableId: string; columns: Column[] }): boolean {
  return olds.tableId !== p.tableId || !same((olds.columns as Column[] | undefined)?.map(canonicalColumn), p.columns.map(canonicalColumn));
}

async function setEnabled(stream: StreamApi, p: Parsed, enabled: boolean, label: string): Promise<void> {
  const task = enabled ? await stream.enableSink(p.branchId, p.sourceId, p.sinkId) : await stream.disableSink(p.branchId, p.sourceId, p.sinkId);
  await stream.runTask(task, label);
}

/** Brings an existing sink to the declared state, writing only what differs. */
async function converge(ctx: ResourceContext, stream: StreamApi, p: Parsed, current: StreamSink, rotate: boolean, label: string, owner: string | undefined): Promise<StreamSink> {
  const want = apiBody(p, owner ?? splitMarker(current.description).owner);
  const have = {
    name: current.name,
    description: current.description,
    allowedSignals: current.allowedSignals ?? [],
    table: current.table && {
      type: "keboola",
      tableId: current.table.tableId,
      mapping: { columns: current.table.mapping.columns.map(canonicalColumn) },
    },
  };
  if (!same(want, have)) {
    if (!same(want.table, have.table)) {
      const failure = await tableFailure(ctx, p.branchId, p.tableId, p.columns);
      if (failure) throw new Error(`${label}: ${failure}`);
    }
    await stream.runTask(await stream.updateSink(p.branchId, p.sourceId, p.sinkId, { ...want, changeDescription: "Updated by Pulumi." }), label);
  }
  const isEnabled = !current.disabled;
  if (rotate && p.enabled) {
    if (isEnabled) await setEnabled(stream, p, false, label);
    await setEnabled(stream, p, true, label);
  } else if (isEnabled !== p.enabled) {
    await setEnabled(stream, p, p.enabled, label);
  }
  return stream.getSink(p.branchId, p.sourceId, p.sinkId);
}

export const handler: ResourceHandler = {
  async check(ctx, olds, news): Promise<dynamic.CheckResult> {
    const { value, failures } = checkWith(sinkInputsSchema, news);
    if (!value) {
      // Template errors are worth reporting even when other inputs are not known yet.
      const cols = news.columns;
      if (Array.isArray(cols)) failures.push(...(await templateFailures(cols)));
      return { inputs: news, failures };
    }
    const p = {
      ...value,
      sinkId: resolveId(value, olds),
      columns: value.columns.map(canonicalColumn),
      // No filter and an empty filter are the same: keep one spelling so refresh shows no diff.
      allowedSignals: value.allowedSignals?.length ? value.allowedSignals : undefined,
    };
    failures.push(...(await templateFailures(p.columns)));
    const tooLong = markedLengthFailure("description", p.description, ownerOf(news), 4096);
    if (tooLong) failures.push(tooLong);
    if (p.sinkId === "") {
      failures.push({ property: "name", reason: `${show(value.name)} has no Latin letter or digit to derive the sink id from (the service would refuse it): set sinkId, e.g. sinkId: "raw-events"` });
    }
    const facts = programFacts(news);
    if (p.allowedSignals?.length && facts.sourceType === "http") {
      // The Source is declared in this program: its type is known before it exists.
      failures.push({ property: "allowedSignals", reason: signalsOnHttp(p.sourceId) });
    }
    if (failures.length === 0 && !containsUnknown([news.sourceId, news.allowedSignals, news.branchId])) {
      const failure = facts.sourceType ? undefined : await signalsFailure(ctx, p);
      if (failure) failures.push({ property: "allowedSignals", reason: failure });
    }
    if (failures.length === 0 && !containsUnknown([news.sourceId, news.branchId, news.sinkId, news.name])) {
      const branch = await branchFailure(ctx, p.branchId);
      const taken = branch ?? (isNew(olds, "sinkId") ? await sinkSlotFailure(ctx, p, ownerOf(news), facts, value.sinkId ? "sinkId" : "name") : undefined);
      if (taken) failures.push(taken);
    }
    const known = !containsUnknown([news.tableId, news.columns, news.branchId]);
    const firstMapping = !olds.tableId;
    if (failures.length === 0 && known && (firstMapping || mappingChanged(olds, p))) {
      const failure = await tableFailure(ctx, p.branchId, p.tableId, p.columns);
      if (failure) failures.push({ property: "columns", reason: failure });
    }
    return { inputs: { ...news, ...p }, failures };
  },

  async diff(_ctx, _id, olds, news) {
    const canonical = (cols: unknown) => (Array.isArray(cols) ? (cols as Column[]).map(canonicalColumn) : cols);
    const o = { ...olds, branchId: olds.branch, columns: canonical(olds.columns) };
    return diffFields(o, { ...news, columns: canonical(news.columns) }, {
      update: ["name", "description", ...MAPPING_FIELDS, "allowedSignals", "enabled", "rotateToken"],
      replace: ["branchId", "sourceId", "sinkId"],
    });
  },

  async create(ctx, inputs) {
    const p: Parsed = { ...parseChecked(sinkInputsSchema, inputs, "Sink"), sinkId: String(inputs.sinkId) };
    const stream = await ctx.client().stream();
    const label = what(inputs, p);
    const owner = ownerOf(inputs);
    const failure = (await signalsFailure(ctx, p)) ?? (await tableFailure(ctx, p.branchId, p.tableId, p.columns));
    if (failure) throw new Error(`${label}: ${failure}`);

    const body = { sinkId: p.sinkId, type: "table", ...apiBody(p, owner) };
    const leftBehind = (left: StreamSink, err: Error): never => {
      // The sink exists even though a step failed: keep tracking it rather than orphan it.
      throw new PartialFailure(err.message, idOf(left), withProvider(outputs(p, left), inputs));
    };
    const created = await createOnce({
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
          ? ({ ...(body as Omit<StreamSink, "projectId" | "branchId" | "sourceId" | "version">), sourceId: p.sourceId, projectId: o.projectId, branchId: o.branchId } as StreamSink)
          : undefined,
      leftBehind,
      fix: "Choose another sinkId (or name), or set adoptExisting: true to take this sink over (it is then brought to the declared state).",
    });
    let sink = created.object;
    if (created.existed || !p.enabled) {
      try {
        sink = await converge(ctx, stream, p, sink, false, label, owner);
      } catch (err) {
        leftBehind(sink, err as Error);
      }
    }
    return { id: idOf(sink), outs: outputs(p, sink) };
  },

  async read(ctx, id, props) {
    const stream = await ctx.client().stream();
    const [branch, sourceId, sinkId] = [String(props.branch ?? "default"), String(props.sourceId), String(props.sinkId ?? id.split("/").pop())];
    const s = await stream.findSink(branch, sourceId, sinkId);
    if (!s) return { id: "" };
    const p = {
      branchId: branch,
      sinkId,
      rotateToken: props.rotateToken as string | undefined,
      adoptExisting: props.adoptExisting === true,
    } as Parsed;
    const outs = outputs(p, s);
    const { branchId: _numeric, projectId: _project, branch: _branch, ...inputs } = outs;
    return { id: idOf(s), props: outs, inputs: { ...inputs, branchId: branch } };
  },

  async update(ctx, _id, olds, news) {
    const p: Parsed = { ...parseChecked(sinkInputsSchema, news, "Sink"), sinkId: String(news.sinkId) };
    const stream = await ctx.client().stream();
    const label = what(news, p);
    const current = await stream.findSink(p.branchId, p.sourceId, p.sinkId);
    if (!current) throw new Error(`${label} no longer exists: run \`pulumi refresh\` so Pulumi recreates it`);
    const rotate = olds.rotateToken !== news.rotateToken && news.rotateToken !== undefined;
    return { outs: outputs(p, await converge(ctx, stream, p, current, rotate, label, ownerOf(news))) };
  },

  async delete(ctx, _id, props) {
    const stream = await ctx.client().stream();
    const p = { branchId: String(props.branch ?? "default"), sourceId: String(props.sourceId), sinkId: String(props.sinkId) };
    // Already gone (or its source is): nothing to do.
    const task = await notFoundAsUndefined(stream.deleteSink(p.branchId, p.sourceId, p.sinkId));
    if (task) await stream.runTask(task, what(props, p));
  },
};

const idOf = (s: StreamSink) => `${s.branchId}/${s.sourceId}/${s.sinkId}`;
