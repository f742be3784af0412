import { z } from "zod";
import type { StreamColumn } from "../api/stream";

// Sink column mappings: the seven column types, their limits, and one canonical form so that
// what the service echoes back (`rawString: false`, `language: "jsonnet"`) is never a diff.

export const MAX_COLUMNS = 100;
export const MAX_TEMPLATE_LENGTH = 4096;

const name = z.string().min(1, "must not be empty").max(64, "must be at most 64 characters").describe("The table column it writes (1-64 characters).");
const primaryKey = z.boolean().optional().describe("Whether the column is part of the table's primary key.");
const rawString = z.boolean().optional().describe("Remove the quotes around a JSON string value.");

const simpleColumn = z
  .object({
    type: z.enum(["uuid", "datetime", "ip", "body", "headers"]).describe("What the column holds: a generated UUID, the time received, the sender's IP, the body, or the headers."),
    name,
    primaryKey,
  })
  .strict();

const pathColumn = z
  .object({
    type: z.literal("path").describe("A value of the JSON body, by its path."),
    name,
    path: z.string().min(1, 'must not be empty: a dotted path into the JSON body, e.g. "user.id"').describe('A dotted path into the JSON body, e.g. "user.id".'),
    defaultValue: z.string().optional().describe("Used when the field does not exist."),
    rawString,
    primaryKey,
  })
  .strict();

const templateColumn = z
  .object({
    type: z.literal("template").describe("The result of a Jsonnet template over the event."),
    name,
    rawString,
    template: z
      .object({
        language: z.literal("jsonnet").default("jsonnet").describe('The template language: "jsonnet".'),
        content: z
          .string()
          .min(1, "must not be empty: write a jsonnet expression, e.g. Body('user.id')")
          .max(MAX_TEMPLATE_LENGTH, `must be at most ${MAX_TEMPLATE_LENGTH} characters`)
          .describe("The Jsonnet expression, e.g. Body('user.id')."),
      })
      .strict()
      .describe("The template computing the column's value."),
    primaryKey,
  })
  .strict();

export const columnSchema = z.discriminatedUnion("type", [simpleColumn, pathColumn, templateColumn], {
  error: 'type must be one of "uuid", "datetime", "ip", "body", "headers", "path", "template"',
});

export const columnsSchema = z
  .array(columnSchema)
  .min(1, "needs at least one column")
  .max(MAX_COLUMNS, `has more than ${MAX_COLUMNS} columns: the service allows at most ${MAX_COLUMNS} per sink`)
  .superRefine((cols, ctx) => {
    const seen = new Map<string, number>();
    cols.forEach((c, i) => {
      const first = seen.get(c.name);
      if (first !== undefined) {
        ctx.addIssue({ code: "custom", path: [i, "name"], message: `"${c.name}" is already the name of columns[${first}]: column names must be unique` });
      } else seen.set(c.name, i);
    });
  })
  // The canonical form is the schema's output: checked inputs and state read back compare as they are.
  .transform((cols) => cols.map(canonicalColumn));

export type Column = z.output<typeof columnSchema>;

/** Canonical column: defaults dropped, so inputs, state and API answers compare equal. */
export function canonicalColumn(c: Column | StreamColumn): Column {
  switch (c.type) {
    case "path":
      return {
        type: "path",
        name: c.name,
        path: c.path,
        ...(c.defaultValue !== undefined ? { defaultValue: c.defaultValue } : {}),
        ...(c.rawString ? { rawString: true } : {}),
        ...(c.primaryKey ? { primaryKey: true } : {}),
      };
    case "template":
      return {
        type: "template",
        name: c.name,
        ...(c.rawString ? { rawString: true } : {}),
        template: { language: "jsonnet", content: c.template.content },
        ...(c.primaryKey ? { primaryKey: true } : {}),
      };
    default:
      return { type: c.type, name: c.name, ...(c.primaryKey ? { primaryKey: true } : {}) };
  }
}

/**
 * Why a mapping cannot write into an existing table, or undefined when it can. The service
 * requires the table's columns to equal the mapping's column names, in order.
 */
export function mappingMismatch(tableId: string, tableColumns: string[], mapping: string[]): string | undefined {
  if (tableColumns.length === mapping.length && tableColumns.every((c, i) => c === mapping[i])) return undefined;
  return (
    `the mapping does not match the existing table "${tableId}".\n` +
    `  table columns:   [${tableColumns.join(", ")}]\n` +
    `  mapping columns: [${mapping.join(", ")}]\n` +
    `The table's columns must equal the mapping's column names, in order, or the sink fails (and imports stop). ` +
    `Fix: make the mapping's columns match the table, point tableId at a new table (it is created), or change the table first.`
  );
}

/**
 * Why a mapping's primary key (its columns marked primaryKey) does not fit an existing table's,
 * or undefined. The service fails such a sink's task: "primary key of the table ... does not
 * match expected [...], found [...]" (emulator/stream/sinkstorage.ts follows it).
 */
export function primaryKeyMismatch(tableId: string, tablePrimaryKey: readonly string[], columns: ReadonlyArray<{ name: string; primaryKey?: boolean }>): string | undefined {
  const mapping = columns.filter((c) => c.primaryKey).map((c) => c.name);
  if (mapping.length === tablePrimaryKey.length && mapping.every((c, i) => c === tablePrimaryKey[i])) return undefined;
  const fix = tablePrimaryKey.length
    ? `set primaryKey: true on exactly ${tablePrimaryKey.map((c) => `"${c}"`).join(", ")}`
    : "remove primaryKey from the columns";
  return (
    `the mapping's primary key [${mapping.join(", ")}] does not match the primary key [${tablePrimaryKey.join(", ")}] of the existing table "${tableId}"; ` +
    `the service would fail the sink. Fix: ${fix}, or point tableId at a new table (it is created with the mapping's primary key).`
  );
}

/**
 * Why two sinks cannot both write a table that does not exist yet, or undefined when they can.
 * Whichever is created first has the service create the table with its mapping's column names and
 * primary key; the other then fails as against any existing table (mappingMismatch,
 * primaryKeyMismatch), so the two mappings must agree on both.
 */
export function sharedTableMismatch(
  tableId: string,
  other: { sink: string; columns: ReadonlyArray<{ name: string; primaryKey?: boolean }> },
  columns: ReadonlyArray<{ name: string; primaryKey?: boolean }>,
): string | undefined {
  const names = (cs: typeof columns) => cs.map((c) => c.name);
  const keys = (cs: typeof columns) => cs.filter((c) => c.primaryKey).map((c) => c.name);
  const same = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
  if (same(names(other.columns), names(columns)) && same(keys(other.columns), keys(columns))) return undefined;
  const show = (cs: typeof columns) => `[${names(cs).join(", ")}]${keys(cs).length ? ` (primary key [${keys(cs).join(", ")}])` : ""}`;
  return (
    `table "${tableId}" does not exist yet and Sink "${other.sink}" of this program writes it too, with other columns; ` +
    `the sink created first creates the table with its own columns, and the other one then fails.\n` +
    `  columns of Sink "${other.sink}": ${show(other.columns)}\n` +
    `  columns of this sink: ${show(columns)}\n` +
    `Fix: give both sinks the same column names and primaryKey, in the same order, or point tableId at another table.`
  );
}
