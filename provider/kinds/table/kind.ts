import { isAbsolute, resolve } from "node:path";
import { z } from "zod";
import type * as dynamic from "@pulumi/pulumi/dynamic";
import { isRecord } from "../../../keboola/json";
import type { StorageApi, StorageJob, StorageTable } from "../../api/storage";
import { asError, KeboolaApiError, KeboolaTaskError } from "../../api/errors";
import { describeProgress, goesSliced, slicing, uploadToStorage, type Uploaded } from "../../api/upload";
import { checkWith, containsUnknown, knownFields, whenKnown } from "../../validation/check";
import { branchSchema } from "../../validation/ids";
import {
  baseTypeOf,
  columnDefinitionSchema,
  contentSummary,
  CsvProblem,
  fileExists,
  headerMismatch,
  inlineCsv,
  dataRanges,
  storedDefinition,
  tableColumnsSchema,
  tableNameSchema,
  type TableColumnDefinition,
} from "../../validation/storage";
import { scanCsvCached } from "../../validation/scan-cache";
import { show } from "../../validation/messages";
import { progressInfo } from "../../progress";
import { same } from "../../lifecycle/common";
import { createOnce } from "../../lifecycle/create-once";
import { defineResource, markerDiff, replaces, untracked, type CheckedOf, type InputsOf, type RecordedOf, type StateOf } from "../../lifecycle/define";
import type { CheckResponse, Handler } from "../../lifecycle/call";
import { branchFailure, isNew } from "../../lifecycle/preflight";
import { CONTENT_KEY, describeOwner, foundWithOwner, metadataValue, METADATA_PROVIDER, OWNER_KEY, ownerTag } from "../../lifecycle/ownership";
import { PartialFailure } from "../../lifecycle/types";

// A Storage table: its bucket and name make its id (a new one replaces it); columns are added in
// place (at the end, as the service appends them), removed in place when the user gives their data
// up (or declares the table's data), and the primary key is changed in place, all by the service's
// column and primary-key endpoints. A typed table (`definition`) is created through
// `tables-definition`; an untyped one from an uploaded CSV through `tables-async` (the seed's path).
// Declared data (a CSV file, or inline rows) is loaded in full (`import-async` with
// `incremental: false` into an existing or typed table) only when its content changes: state keeps
// its size and sha256 (`dataContent`), which check computes from the file, so the diff shows
// `dataContent: "3.0 MB, sha256 a…" => "3.0 MB, sha256 b…"`. The owner marker and the hash of the
// content last loaded are metadata entries of the table.

const cell = z.union([z.string(), z.number(), z.boolean(), z.null()]).transform((v) => (v === null ? "" : String(v)));

const dataSchema = z
  .union([
    z.string().min(1, "must not be empty: the path of a CSV file, relative to the program (or the manifest)"),
    z.object({ rows: z.array(z.array(cell)).describe("Rows, each a list of values in the order of columns.") }).strict(),
  ])
  .describe("The table's content: a CSV file (path relative to the program; header = columns, RFC 4180) or inline rows. Loaded in full when it changes.");

/** A typed table's columns: each one's native type. */
const definitionSchema = z.record(z.string(), columnDefinitionSchema);
const primaryKeySchema = z.array(z.string()).default([]);

export const table = defineResource({
  type: "Table",
  description: "A Storage table, optionally typed, optionally with its content.",
  inputs: {
    branchId: replaces(branchSchema),
    bucketId: replaces(
      z
        .string()
        .regex(/^(in|out)\.[A-Za-z0-9_-]+$/, 'must be a bucket id like "in.c-ref": pass a Bucket\'s bucketId')
        .describe("The bucket: a Bucket's bucketId, or an existing bucket's id."),
    ),
    name: replaces(tableNameSchema.describe("Table name; the id is <bucketId>.<name>.")),
    columns: tableColumnsSchema.describe("Column names, in order. New columns may only be added at the end (the service appends them)."),
    primaryKey: primaryKeySchema.describe("Primary key columns (each a column). Changed in place."),
    definition: definitionSchema
      .optional()
      .describe("Typed table: each column's native type, e.g. { code: { type: \"VARCHAR\", length: \"2\" } }. Every column needs one."),
    data: dataSchema.optional(),
    dataContent: untracked(z.string().optional().describe("Computed by the provider at preview: the declared data's size and sha256. Any value given is replaced.")),
    allowDropColumns: untracked(
      z.boolean().default(false).describe("Allow removing columns from a table whose data is not declared here (their data is lost)."),
    ),
    allowRecreate: untracked(
      z
        .boolean()
        .default(false)
        .describe("Allow replacing the table (dropping its rows) when a typed column's type changes, or the table becomes typed or untyped, and its data is not declared here."),
    ),
    adoptExisting: untracked(z.boolean().default(false).describe("Take over an existing table with the same id instead of refusing it.")),
  },
  outputs: {
    tableId: z.string().describe('The table id, e.g. "in.c-ref.countries".'),
  },
  // Its Bucket of the same program, when the program says its id (literal stage and name).
  expected: (facts) => ({ bucketId: facts.bucketId }),
  // Each rule runs when the fields it compares are known (at preview the columns may be another resource's output).
  refine: (v, ctx) => {
    const columns = whenKnown(v.columns);
    const primaryKey = whenKnown(v.primaryKey);
    const definition = whenKnown(v.definition);
    if (columns && primaryKey) {
      primaryKey.forEach((k, i) => {
        if (!columns.includes(k)) ctx.addIssue({ code: "custom", path: ["primaryKey", i], message: `"${k}" is not one of the columns [${columns.join(", ")}]: add it to columns or remove it from primaryKey` });
      });
    }
    if (primaryKey && new Set(primaryKey).size !== primaryKey.length) ctx.addIssue({ code: "custom", path: ["primaryKey"], message: "names a column twice: list each once" });
    if (definition && columns) {
      for (const c of columns) {
        if (!definition[c]) ctx.addIssue({ code: "custom", path: ["definition"], message: `has no entry for column "${c}": a typed table defines every column` });
      }
      for (const c of Object.keys(definition)) {
        if (!columns.includes(c)) ctx.addIssue({ code: "custom", path: ["definition", c], message: `"${c}" is not one of the columns: remove it or add the column` });
      }
    }
    if (definition && primaryKey) {
      for (const [c, d] of Object.entries(definition)) {
        if (primaryKey.includes(c) && d.nullable === true) {
          ctx.addIssue({ code: "custom", path: ["definition", c, "nullable"], message: "a primary key column cannot be nullable (the backend refuses it): remove nullable" });
        }
      }
    }
    const data = whenKnown(v.data);
    if (data && typeof data === "object" && columns) {
      data.rows.forEach((r, i) => {
        if (r.length !== columns.length) ctx.addIssue({ code: "custom", path: ["data", "rows", i], message: `has ${r.length} values, but the table has ${columns.length} columns` });
      });
    }
  },
});

export const tableInputsSchema = table.inputs;
export type TableInputs = InputsOf<typeof table>;
type Parsed = CheckedOf<typeof table>;
type State = StateOf<typeof table>;



const what = (name: string, id: string) => `Table "${id}" (resource "${name}")`;
const tableIdOf = (p: { bucketId: string; name: string }) => `${p.bucketId}.${p.name}`;

/** The declaration a table of the service amounts to (read, drift, export; never its data). */
export function tableFromRemote(t: StorageTable) {
  const bucketId = t.id.split(".").slice(0, 2).join(".");
  // Only a typed table declares types: an untyped table's detail lists its columns with empty definitions.
  const definition = t.isTyped && t.definition ? Object.fromEntries(t.definition.columns.flatMap((c) => (Array.isArray(c.definition) ? [] : [[c.name, definitionFromRemote(c.definition)]]))) : undefined;
  return { bucketId, name: t.name, columns: [...t.columns], primaryKey: [...(t.primaryKey ?? [])], ...(definition ? { definition } : {}) };
}

function definitionFromRemote(d: { type: string; length?: string | null; nullable?: boolean; default?: string | null }): TableColumnDefinition {
  return {
    type: d.type.toUpperCase(),
    ...(d.length !== undefined && d.length !== null && d.length !== "" ? { length: String(d.length) } : {}),
    ...(d.nullable === false ? { nullable: false } : {}),
    ...(d.default !== undefined && d.default !== null && d.default !== "" ? { default: d.default } : {}),
  };
}

/** A declared definition as the create and column requests send it (a primary key column not nullable). */
function canonicalDefinition(d: TableColumnDefinition, primaryKey: boolean): TableColumnDefinition {
  return {
    type: d.type,
    ...(d.length !== undefined ? { length: d.length } : {}),
    ...(d.nullable === false || primaryKey ? { nullable: false } : d.nullable === true ? { nullable: true } : {}),
    ...(d.default !== undefined ? { default: d.default } : {}),
  };
}

function sameDefinition(a: Record<string, TableColumnDefinition>, b: Record<string, TableColumnDefinition>, primaryKey: string[]): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((c) => b[c] && same(storedDefinition(c, a[c], primaryKey.includes(c)), storedDefinition(c, b[c], primaryKey.includes(c))));
}

function stateOf(p: Parsed, t: StorageTable, dataContent: string | undefined): State {
  const remote = tableFromRemote(t);
  const { dataContent: _declared, ...rest } = p;
  return {
    ...rest,
    ...remote,
    // The declared definition when the service keeps the same (in its own spelling), else the service's; none for an untyped table.
    ...(p.definition && remote.definition ? { definition: sameDefinition(p.definition, remote.definition, p.primaryKey) ? p.definition : remote.definition } : {}),
    ...(dataContent !== undefined ? { dataContent } : {}),
    tableId: t.id,
  };
}

// ---- data ---------------------------------------------------------------------------------------

type Source = { path: string } | { text: string };

function dataSource(p: Pick<Parsed, "data" | "columns">, root: string | undefined): Source | undefined {
  if (p.data === undefined) return undefined;
  if (typeof p.data === "string") return { path: isAbsolute(p.data) ? p.data : resolve(root ?? process.cwd(), p.data) };
  return { text: inlineCsv(p.columns, p.data.rows) };
}


/**
 * Size and sha256 of the declared data, checked: a problem is `{ property, reason }`. A file is
 * read and checked as a CSV whatever else is unknown; its header is compared with the columns when
 * they are known, and inline rows need them to make the CSV.
 */
async function inspectData(p: { data: Parsed["data"]; columns: string[] | undefined }, root: string | undefined): Promise<{ summary?: string; failure?: dynamic.CheckFailure }> {
  if (p.data === undefined || (typeof p.data !== "string" && p.columns === undefined)) return {};
  const source = dataSource({ data: p.data, columns: p.columns ?? [] }, root);
  if (!source) return {};
  if ("text" in source) {
    const { createHash } = await import("node:crypto");
    return { summary: contentSummary(Buffer.byteLength(source.text), createHash("sha256").update(source.text).digest("hex")) };
  }
  const shown = show(p.data);
  if (!fileExists(source.path)) return { failure: { property: "data", reason: `${shown}: no such file (looked at ${source.path}): give a CSV path relative to the program (or the manifest)` } };
  try {
    const scan = await scanCsvCached(source.path, slicing.sliceBytes);
    const mismatch = p.columns === undefined ? undefined : headerMismatch(scan.header, p.columns);
    if (mismatch) return { failure: { property: "data", reason: `${shown}: ${mismatch}` } };
    return { summary: contentSummary(scan.bytes, scan.sha256) };
  } catch (err) {
    if (err instanceof CsvProblem) return { failure: { property: "data", reason: `${shown} is not a valid CSV (RFC 4180): ${err.message}: fix the file` } };
    throw err;
  }
}

const shaOf = (summary: string | undefined) => summary?.split("sha256 ")[1];

/** Uploads the declared data (or, for a new table without data, the header alone) and reports progress. */
async function upload(storage: StorageApi, p: Parsed, root: string | undefined, label: string, owner: string | undefined, headerOnly = false): Promise<Uploaded> {
  const declared = (headerOnly ? undefined : dataSource(p, root)) ?? { text: inlineCsv(p.columns, []) };
  let total: number | undefined;
  let source: Parameters<typeof uploadToStorage>[2] = declared;
  if ("path" in declared) {
    const { statSync } = await import("node:fs");
    total = statSync(declared.path).size;
    if (goesSliced(total)) {
      // Sliced at the record boundaries check's scan found (the same scan, cached in this process).
      const scan = await scanCsvCached(declared.path, slicing.sliceBytes);
      source = { path: declared.path, slices: { ranges: dataRanges(scan), bytes: scan.bytes, sha256: scan.sha256 } };
    }
  }
  let last = 0;
  return uploadToStorage(storage, p.branchId, source, {
    name: `${p.name}.csv.gz`,
    tags: ["keboola-pulumi", ...(owner ? [ownerTag(owner)] : [])],
    totalBytes: total,
    progress: (pr) => {
      // Small files go without progress lines; a long one reports every 2 s and at its end.
      if (!pr.done && pr.bytes === last) return;
      last = pr.bytes;
      if (pr.done && (total ?? 0) < 8 * 1024 * 1024) return;
      void progressInfo(owner, describeProgress(label, pr), !pr.done);
    },
  });
}

/** A failed job as the user reads it: its `error.message`, the resource, and the fix. */
function jobFailure(label: string, step: string, err: unknown, fix: string): Error {
  if (err instanceof KeboolaTaskError) return new Error(`${label}: ${step} failed: ${err.taskMessage}. ${fix}`);
  return err instanceof Error ? new Error(`${label}: ${step} failed: ${err.message}`) : new Error(String(err));
}

async function runJob(storage: StorageApi, job: Promise<StorageJob>, label: string): Promise<StorageJob> {
  return storage.waitJob(await job, label);
}

/** Loads the declared data in full into an existing table and records its hash on the table. */
async function load(storage: StorageApi, p: Parsed, tableId: string, root: string | undefined, label: string, owner: string | undefined, uploaded?: Uploaded): Promise<string> {
  const file = uploaded ?? (await upload(storage, p, root, label, owner));
  try {
    // A sliced file's slices have no header: the load names the columns (as Storage wants for sliced files).
    const columns = file.sliced ? { columns: p.columns } : {};
    await runJob(storage, storage.importAsync(p.branchId, tableId, { dataFileId: file.file.id, incremental: false, delimiter: ",", enclosure: '"', ...columns }), label);
  } catch (err) {
    throw jobFailure(label, `loading the data (import-async of file ${file.file.id})`, err, "Fix the data (or the columns) and run `pulumi up` again; the table keeps its previous rows.");
  }
  await storage.setTableMetadata(p.branchId, tableId, METADATA_PROVIDER, [{ key: CONTENT_KEY, value: file.sha256 }]);
  return contentSummary(file.bytes, file.sha256);
}

// ---- ownership ----------------------------------------------------------------------------------

/**
 * The owner of a table: its marker, else (an unmarked table, as our own create leaves it until the
 * marker is written) ours when the job that created it loaded a file tagged with our owner tag,
 * or, for a typed table, when it is empty and has exactly the declared columns.
 */
async function ownerOfTable(storage: StorageApi, p: Pick<Parsed, "branchId" | "name" | "definition" | "columns">, t: StorageTable, owner: string | undefined): Promise<string | undefined> {
  const marked = metadataValue(t.metadata, OWNER_KEY);
  if (marked || !owner) return marked;
  if (p.definition) return !t.rowsCount && same(t.columns, p.columns) ? owner : undefined;
  const jobs = await storage.listJobs(100).catch((): StorageJob[] => []);
  for (const job of jobs) {
    if (job.operationName !== "tableCreate" || job.status !== "success") continue;
    const { params, source } = job.operationParams ?? {};
    const fileId = isRecord(source) ? source.fileId : undefined;
    if (!isRecord(params) || params.name !== p.name || (typeof fileId !== "string" && typeof fileId !== "number")) continue;
    const file = await storage.getFile(p.branchId, fileId).catch(() => undefined);
    if (file?.tags.includes(ownerTag(owner))) return owner;
  }
  return undefined;
}

const alreadyExists = (err: unknown) =>
  (err instanceof KeboolaApiError && /alreadyExists$/i.test(err.code ?? "")) || (err instanceof KeboolaTaskError && /already exists/i.test(err.taskMessage));

// ---- diff ---------------------------------------------------------------------------------------

/** A list of strings (the old inputs' columns, as the engine passes them back). */
function isStringList(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((c) => typeof c === "string");
}

/** Columns whose typed definition changed (the backend cannot alter a column's type: replace). */
function redefined(olds: RecordedOf<typeof table>, p: { definition?: Record<string, TableColumnDefinition>; primaryKey: string[] }): string[] {
  if (!p.definition !== !olds.definition) return ["(typed)"];
  if (!p.definition || !olds.definition) return [];
  return Object.keys(p.definition).filter((c) => olds.definition?.[c] && !same(storedDefinition(c, olds.definition[c], p.primaryKey.includes(c)), storedDefinition(c, p.definition![c], p.primaryKey.includes(c))));
}

export const handler: Handler<typeof table> = {
  async check(req): Promise<CheckResponse> {
    const { olds, news } = req;
    const { dataContent: _given, ...given } = news;
    const { value, failures } = checkWith(table, given, table.expectedOf(req.call.facts));
    if (!value) return { inputs: given, failures };
    // Each check below runs on the inputs it needs when they are known, whatever else is unknown
    // (the bucket is usually a Bucket of the same program, its id unknown at a first preview).
    const columns = whenKnown(value.columns);
    let dataContent: string | undefined;
    const data = whenKnown(value.data);
    if (failures.length === 0 && data !== undefined) {
      const inspected = await inspectData({ data, columns }, req.call.root);
      if (inspected.failure) failures.push(inspected.failure);
      dataContent = inspected.summary;
    }
    // The table the old inputs address (the engine passes check the old inputs, not the outputs),
    // and whether these inputs address the same one.
    const oldId = typeof olds.bucketId === "string" && typeof olds.name === "string" ? `${olds.bucketId}.${olds.name}` : undefined;
    const oldBranch = typeof olds.branchId === "string" ? olds.branchId : "default";
    const recorded = table.parseState(olds);
    const sameTable = oldId !== undefined && !isNew(olds, { branchId: value.branchId, bucketId: value.bucketId, name: value.name });
    // Columns already in the table keep their order; new ones come after them.
    const had = isStringList(olds.columns) ? olds.columns : undefined;
    const settled = knownFields(value, ["columns", "primaryKey", "definition", "data", "allowRecreate", "allowDropColumns"]);
    if (had && sameTable && settled) {
      const kept = settled.columns.filter((c) => had.includes(c));
      const lastKept = Math.max(-1, ...kept.map((c) => settled.columns.indexOf(c)));
      const added = settled.columns.filter((c) => !had.includes(c));
      if (!same(kept, had.filter((c) => settled.columns.includes(c))) || added.some((c) => settled.columns.indexOf(c) < lastKept)) {
        failures.push({
          property: "columns",
          reason: `the table's columns are [${had.join(", ")}]; the service adds new columns at the end and cannot reorder them: keep these in this order and append new ones after them`,
        });
      }
      // A new column type cannot be altered in place: the table is replaced, and rows not declared here would be lost.
      const retyped = redefined(recorded, settled);
      if (retyped.length > 0 && settled.data === undefined && !settled.allowRecreate) {
        const was = recorded.definition ?? {};
        const shownType = (d: TableColumnDefinition | undefined) => (d ? `${d.type}${d.length ? `(${d.length})` : ""}` : "untyped");
        const what =
          retyped[0] === "(typed)"
            ? `makes the table ${settled.definition ? "typed" : "untyped"}`
            : `changes the type of ${retyped.map((c) => `column "${c}" (${shownType(was[c])} → ${shownType(settled.definition?.[c])})`).join(", ")}`;
        failures.push({
          property: "definition",
          reason: `${what}, which the backend cannot alter in place: the table would be replaced and its rows, which this table does not declare, lost. Set allowRecreate: true to give them up, declare data so it is loaded into the new table, or keep the type`,
        });
      }
      const removed = had.filter((c) => !settled.columns.includes(c));
      if (removed.length > 0 && settled.data === undefined && !settled.allowDropColumns) {
        failures.push({
          property: "columns",
          reason: `removes column(s) ${removed.map((c) => `"${c}"`).join(", ")} and the data in them, which this table does not declare: set allowDropColumns: true to give that data up, or keep the columns`,
        });
      }
    }
    // A new name, bucket or branch replaces the table: the old one is dropped first (the diff says
    // delete-before-replace) with its rows, which only declared data brings back.
    if (failures.length === 0 && oldId !== undefined && settled && settled.data === undefined && !settled.allowRecreate) {
      const moved = markerDiff(table, recorded, given, req.call.facts).replaces ?? [];
      const rows = moved.length ? ((await req.client().storage.findTableDetail(oldBranch, oldId))?.rowsCount ?? 0) : 0;
      if (rows > 0) {
        const checked: Readonly<Record<string, unknown>> = value;
        const changes = moved.map((f) => `${f} (${show(olds[f])} → ${show(checked[f])})`).join(", ");
        failures.push({
          property: moved[0],
          reason: `changing ${changes} replaces the table: "${oldId}" is dropped with its ${rows} row(s), which this table does not declare. Set allowRecreate: true to give them up, declare data so it is loaded into the new table, or keep the ${moved[0]}`,
        });
      }
    }
    // Against the stack: the branch, the bucket and a free table id. Needs the table's id: a bucket
    // whose id is unknown is a Bucket of this program not created yet, so no table of it exists.
    const slot = knownFields(value, ["branchId", "bucketId", "name", "adoptExisting", "columns", "definition"]);
    if (failures.length === 0 && !sameTable && slot) {
      const branch = await branchFailure(req, slot.branchId);
      const bucketMissing =
        !branch && !req.call.facts.declared && !(await req.client().storage.findBucket(slot.branchId, slot.bucketId))
          ? {
              property: "bucketId",
              reason: `bucket "${slot.bucketId}" does not exist in branch ${slot.branchId}, and no Bucket of this program declares it: declare it (a Bucket, or an entry under buckets: in the manifest) and pass its bucketId, or name an existing bucket`,
            }
          : undefined;
      if (branch) failures.push(branch);
      else if (bucketMissing) failures.push(bucketMissing);
      else if (!slot.adoptExisting) {
        const id = tableIdOf(slot);
        const found = await req.client().storage.findTableDetail(slot.branchId, id);
        // Unmarked but ours (a crash after our create job was submitted): the same rule as create's.
        const owner = found ? await ownerOfTable(req.client().storage, slot, found, req.call.owner) : undefined;
        if (found && owner !== undefined && owner !== req.call.owner) {
          failures.push({ property: "name", reason: `table "${id}" already exists and belongs to ${describeOwner(owner)}: choose another name, or set adoptExisting: true to take it over` });
        } else if (found && owner === undefined) {
          failures.push({ property: "name", reason: `table "${id}" already exists (not created by keboola-pulumi): choose another name, or set adoptExisting: true to take it over (its rows are replaced when data is declared)` });
        }
      }
    }
    return { inputs: { ...given, ...value, ...(dataContent !== undefined ? { dataContent } : {}) }, failures };
  },

  async diff(req) {
    const { olds, news } = req;
    const base = markerDiff(table, olds, news, req.call.facts);
    // The inputs passed check, so they parse; a primary key still unknown at preview counts as none.
    const definition = definitionSchema.optional().safeParse(news.definition);
    const primaryKey = primaryKeySchema.safeParse(news.primaryKey);
    const retyped = !containsUnknown(news.definition) && definition.success && redefined(olds, { definition: definition.data, primaryKey: primaryKey.success ? primaryKey.data : [] });
    const replaces = [...(base.replaces ?? []), ...(retyped && retyped.length ? ["definition"] : [])];
    const dataChanged = news.dataContent !== undefined && news.dataContent !== olds.dataContent;
    return { changes: base.changes || dataChanged || replaces.length > 0, replaces, deleteBeforeReplace: true };
  },

  async create(req) {
    const { inputs: p } = req;
    const storage = req.client().storage;
    const root = req.call.root;
    const id = tableIdOf(p);
    const label = what(req.call.name, id);
    const owner = req.call.owner;
    let marked = false;
    // An untyped table is created from its data file (or its header alone): uploaded when a create is
    // first attempted, once whatever the attempts; not at all when an existing table is taken over.
    let uploaded: Uploaded | undefined;
    let uploading: Promise<Uploaded> | undefined;
    // A file large enough to go sliced: the table is created from its header, then loaded by import-async.
    const source = dataSource(p, root);
    const sliced = !!source && "path" in source && fileExists(source.path) && goesSliced((await import("node:fs")).statSync(source.path).size);
    const uploadOnce = async () => (uploaded = await (uploading ??= upload(storage, p, root, label, owner, sliced)));
    const created = await createOnce<StorageTable>({
      label,
      where: `in branch ${p.branchId}`,
      owner,
      adoptExisting: p.adoptExisting,
      fix: "Choose another name, or set adoptExisting: true to take this table over (its columns are brought to the declared ones; declared data replaces its rows).",
      find: async () => {
        const t = await storage.findTableDetail(p.branchId, id);
        if (!t) return undefined;
        const seen = foundWithOwner(t, await ownerOfTable(storage, p, t, owner), owner);
        marked = seen.marked;
        return seen.object;
      },
      ownerOf: (t) => metadataValue(t.metadata, OWNER_KEY),
      create: async () => {
        const job = p.definition
          ? storage.createTableDefinition(p.branchId, p.bucketId, {
              name: p.name,
              primaryKeysNames: p.primaryKey,
              columns: p.columns.map((c) => ({ name: c, definition: canonicalDefinition(p.definition![c], p.primaryKey.includes(c)), basetype: baseTypeOf(p.definition![c].type) })),
            })
          : storage.createTableAsync(p.branchId, p.bucketId, { name: p.name, dataFileId: (await uploadOnce()).file.id, primaryKey: p.primaryKey.join(","), delimiter: ",", enclosure: '"' });
        await runJob(storage, job, label);
        const t = await storage.findTableDetail(p.branchId, id);
        if (!t) throw new Error(`${label}: the create job succeeded but the table cannot be read back; run \`pulumi up\` again`);
        return { object: t };
      },
      exists: alreadyExists,
      whenExistsUnreadable: "fail",
    }).catch((err: unknown) => {
      if (err instanceof KeboolaTaskError) throw jobFailure(label, "creating the table", err, "Fix the table's declaration (or its data) and run `pulumi up` again.");
      throw err;
    });
    let current = created.object;
    let loaded: string | undefined;
    try {
      if (!marked && owner) await storage.setTableMetadata(p.branchId, id, METADATA_PROVIDER, [{ key: OWNER_KEY, value: owner }]);
      if (created.existed) current = await converge(storage, p, current, label);
      const declared = dataSource(p, root) !== undefined;
      if (!created.existed && !p.definition && !sliced) {
        // Created from the data file itself: loaded.
        if (declared) {
          await storage.setTableMetadata(p.branchId, id, METADATA_PROVIDER, [{ key: CONTENT_KEY, value: uploaded!.sha256 }]);
          loaded = contentSummary(uploaded!.bytes, uploaded!.sha256);
        }
      } else if (declared) {
        const have = metadataValue(current.metadata, CONTENT_KEY);
        loaded = have && have === shaOf(p.dataContent) ? p.dataContent : await load(storage, p, id, root, label, owner, p.definition || sliced ? undefined : uploaded);
      }
      current = (await storage.findTableDetail(p.branchId, id)) ?? current;
    } catch (err) {
      // The table exists: Pulumi keeps tracking it, without a recorded content, so the next `up` loads it.
      throw new PartialFailure(asError(err).message, id, stateOf(p, current, undefined));
    }
    return { id, outs: stateOf(p, current, loaded) };
  },

  async read(req) {
    const { id, recorded } = req;
    const storage = req.client().storage;
    const branchId = recorded.branchId ?? "default";
    const t = await storage.findTableDetail(branchId, recorded.tableId ?? id);
    if (!t) return { id: "" };
    const base: Parsed = {
      branchId,
      bucketId: recorded.bucketId ?? "",
      name: recorded.name ?? t.name,
      columns: recorded.columns ?? [],
      primaryKey: recorded.primaryKey ?? [],
      ...(recorded.definition ? { definition: recorded.definition } : {}),
      ...(recorded.data !== undefined ? { data: recorded.data } : {}),
      allowDropColumns: recorded.allowDropColumns ?? false,
      allowRecreate: recorded.allowRecreate ?? false,
      adoptExisting: recorded.adoptExisting ?? false,
    };
    // Content loaded by someone else (its hash on the table differs from ours) shows as a change of dataContent.
    const sha = metadataValue(t.metadata, CONTENT_KEY);
    const content = recorded.dataContent !== undefined && sha !== undefined && sha !== shaOf(recorded.dataContent) ? `changed outside Pulumi (sha256 ${sha})` : recorded.dataContent;
    const state = stateOf(base, t, content);
    const { tableId: _t, ...inputs } = state;
    return { id: t.id, props: state, inputs };
  },

  async update(req) {
    const { id, olds, news: p } = req;
    const storage = req.client().storage;
    const label = what(req.call.name, id);
    const current = await storage.findTableDetail(p.branchId, id);
    if (!current) throw new Error(`${label} no longer exists: run \`pulumi refresh\` so Pulumi recreates it`);
    let after = await converge(storage, p, current, label);
    let loaded = olds.dataContent;
    if (p.data !== undefined && p.dataContent !== undefined && p.dataContent !== olds.dataContent) {
      try {
        loaded = await load(storage, p, id, req.call.root, label, req.call.owner);
      } catch (err) {
        throw new PartialFailure(asError(err).message, id, stateOf(p, after, olds.dataContent));
      }
      after = (await storage.findTableDetail(p.branchId, id)) ?? after;
    }
    if (p.data === undefined) loaded = undefined;
    return { outs: stateOf(p, after, loaded) };
  },

  async delete(req) {
    const { id, recorded } = req;
    const storage = req.client().storage;
    const tableId = recorded.tableId ?? id;
    try {
      await storage.deleteTable(recorded.branchId ?? "default", tableId, what(req.call.name, tableId));
    } catch (err) {
      // Dropped meanwhile (with its bucket, or by hand): deleted is deleted.
      if (err instanceof KeboolaTaskError && /not found/i.test(err.taskMessage)) return;
      throw err;
    }
  },
};

/** Brings an existing table's columns and primary key to the declared ones, by the service's column and primary-key endpoints. */
async function converge(storage: StorageApi, p: Parsed, current: StorageTable, label: string): Promise<StorageTable> {
  const id = current.id;
  const step = async (what: string, job: () => Promise<StorageJob>) => {
    try {
      await runJob(storage, job(), label);
    } catch (err) {
      throw jobFailure(label, what, err, "Fix the declaration and run `pulumi up` again.");
    }
  };
  const pkChanges = !same(current.primaryKey ?? [], p.primaryKey);
  if (pkChanges && (current.primaryKey ?? []).length > 0) await step("removing the primary key", () => storage.deletePrimaryKey(p.branchId, id));
  for (const c of p.columns.filter((c) => !current.columns.includes(c))) {
    const d = p.definition?.[c];
    await step(`adding column "${c}"`, () => storage.addColumn(p.branchId, id, d ? { name: c, definition: canonicalDefinition(d, false), basetype: baseTypeOf(d.type) } : { name: c }));
  }
  for (const c of current.columns.filter((c) => !p.columns.includes(c))) {
    await step(`removing column "${c}"`, () => storage.deleteColumn(p.branchId, id, c));
  }
  if (pkChanges && p.primaryKey.length > 0) await step(`setting the primary key [${p.primaryKey.join(", ")}]`, () => storage.createPrimaryKey(p.branchId, id, p.primaryKey));
  return (await storage.findTableDetail(p.branchId, id)) ?? current;
}

export const definition = table;
