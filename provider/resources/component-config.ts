import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { branchSchema } from "../validation/ids";
import type * as dynamic from "@pulumi/pulumi/dynamic";
import type { ConfigRow, Configuration, StorageApi } from "../api/storage";
import { isNotFound } from "../api/errors";
import { checkWith, containsUnknown, userInputs } from "../validation/check";
import { variableDeclarationSchema, type VariableDeclaration } from "../validation/variables";
import { checkPlaceholders, undeclaredMessage } from "../validation/placeholders";
import { genericExtractorConfigurationSchema, isGenericExtractor, rowJobsSchema } from "../validation/pagination";
import { same, type ArgsOf } from "./common";
import { defineResource, KeboolaResource, secret, type CheckedOf, type Handler, type InputsOf, type OutputsOf, type StateOf } from "./define";
import kindProvider from "../kinds/component-config";
import { PartialFailure, type Props } from "./types";
import { splitMarker, withMarker } from "./ownership";
import { componentConfigFacts, declareConfig, declaredConfig, plainSecretPaths, plainSecretWarning } from "./program";
import { encryptorFor, expectedRemote, sealForWrite, secretValuesSchema, withoutPlainText, type Encrypt, type SealedDoc, type SecretValues } from "./secret-values";
import { branchFailure, componentFailure, configSlotFailure, firstFailure, isNew } from "./preflight";
import {
  assertCanManage,
  assertCanPurge,
  configIdReplaces,
  configResourceId,
  createConfigOnce,
  createRowOnce,
  deleteConfigResource,
  findLiveConfig,
  normalizeConfig,
  addressedConfig,
  unknownAsOld,
  adoptExistingSchema,
  ADOPT_NEEDS_ID,
  DEFAULT_CHANGE_DESCRIPTION,
  VARIABLES_COMPONENT,
} from "./configurations";

// A component configuration with its rows, optionally bound to a VariableConfig.
//
// Rows are reconciled one by one, never replaced wholesale. A declared row is matched to an
// existing row by, in this order: its explicit `rowId`; the id recorded in state for the row of
// the same name; the id recorded at the same position when that row was renamed; an existing
// row of the same (unique) name (after `pulumi import` or a partial create). Matched rows are
// written only when they differ, unmatched declared rows are created (with their `rowId` when
// given), rows no declared row matches are deleted, and `rowsSortOrder` is written only when the
// order differs. The configuration owns all its rows.
//
// The `variables` binding writes `variables_id` / `variables_values_id` into the configuration's
// root. Every `{{placeholder}}` in the configuration and its rows must then be a declared
// variable: checked at preview when the declarations are known (pass `variableConfig.binding()`),
// and against the variables configuration itself before anything is written.

const jsonObject = z.record(z.string(), z.unknown(), { error: "must be an object (the JSON configuration)" });

export const rowInputsSchema = z
  .object({
    rowId: z
      .string()
      .min(1, "must not be empty")
      .regex(/^[A-Za-z0-9._-]+$/, "must be letters, digits, '.', '_' or '-'")
      .optional()
      .describe("Stable row id: the row is created with it and always matched by it, so renames and reorders never recreate it. Chosen by Keboola when omitted."),
    name: z.string({ error: "required: the row name" }).min(1, "must not be empty").describe("Row name; rows without rowId are matched by it."),
    description: z.string().default("").describe("Row description."),
    configuration: jsonObject.default({}).describe("The row's JSON configuration (merged into the root configuration when a job runs)."),
    isDisabled: z.boolean().default(false).describe("Disabled rows are skipped by jobs."),
  })
  .strict();

export const variablesBindingSchema = z
  .object({
    configId: z
      .string({ error: "required: the id of the keboola.variables configuration (VariableConfig.configId)" })
      .min(1, "must not be empty")
      .describe("The keboola.variables configuration (VariableConfig.configId), written as variables_id."),
    valuesRowId: z.string().min(1, "must not be empty").nullish().describe("The default-values row (VariableConfig.valuesRowId), written as variables_values_id."),
    declared: z
      .array(variableDeclarationSchema)
      .nullish()
      .describe("The declared variables (VariableConfig.variables), so placeholders are checked at preview. binding() passes them."),
  })
  .strict();

const COMPONENT_ID = /^[A-Za-z0-9._-]+$/;
const ROOT_VARIABLE_KEYS = ["variables_id", "variables_values_id"] as const;

export const componentConfig = defineResource({
  type: "ComponentConfig",
  description: "A component configuration with its rows, optionally bound to a VariableConfig.",
  inputs: {
    branchId: branchSchema,
    componentId: z
      .string({ error: 'required: the component id, e.g. "keboola.ex-generic-v2"' })
      .regex(COMPONENT_ID, "must be a component id such as keboola.ex-generic-v2")
      .refine((id) => id !== VARIABLES_COMPONENT, { message: `use VariableConfig for ${VARIABLES_COMPONENT} configurations` })
      .describe("Component id, e.g. keboola.ex-generic-v2. Changing it replaces the configuration."),
    configId: z
      .string()
      .min(1, "must not be empty: omit it to let Keboola choose the id")
      .regex(/^[A-Za-z0-9._-]+$/, "must be letters, digits, '.', '_' or '-'")
      .optional()
      .describe("Configuration id; chosen by Keboola when omitted. Changing it replaces the configuration."),
    name: z.string({ error: "required: the configuration name" }).min(1, "must not be empty").describe("Configuration name."),
    description: z.string().default("").describe("Configuration description."),
    configuration: jsonObject.default({}).describe("The JSON configuration (its root; rows have their own)."),
    rows: z.array(rowInputsSchema, { error: "must be an array of rows" }).default([]).describe("Configuration rows, in order (rowsSortOrder)."),
    isDisabled: z.boolean().default(false).describe("A disabled configuration is not run (a JobRun of it fails)."),
    changeDescription: z.string().optional().describe(`Version description written with each change (default "${DEFAULT_CHANGE_DESCRIPTION}").`),
    variables: variablesBindingSchema.optional().describe("Bind a VariableConfig: pass variableConfig.binding()."),
    purgeOnDelete: z.boolean().default(false).describe("On delete, also purge the configuration from the trash (default: it stays in the trash and can be restored)."),
    adoptExisting: adoptExistingSchema,
  },
  refine: (v, ctx) => {
    if (v.adoptExisting && v.configId === undefined) ctx.addIssue({ code: "custom", path: ["adoptExisting"], message: ADOPT_NEEDS_ID });
    const ids = new Map<string, number>();
    v.rows.forEach((r, i) => {
      if (r.rowId === undefined) return;
      const first = ids.get(r.rowId);
      if (first !== undefined) ctx.addIssue({ code: "custom", path: ["rows", i, "rowId"], message: `duplicate rowId "${r.rowId}" (also rows[${first}]): row ids must be unique` });
      else ids.set(r.rowId, i);
    });
    if (v.variables) {
      for (const key of ROOT_VARIABLE_KEYS) {
        if (key in v.configuration) {
          ctx.addIssue({ code: "custom", path: ["configuration", key], message: `is written from the variables input: remove ${key} from the configuration` });
        }
      }
    }
  },
  outputs: {
    configId: z.string().describe("Configuration id."),
    rowIds: z.array(z.string()).describe("Ids of the rows, in the order of rows."),
    version: z.number().int().describe("Configuration version."),
    warnings: z.array(z.string()).describe("Declared variables no placeholder uses."),
  },
  internal: {
    /** Whether configId was declared (else Keboola chose it, and a later declared configId is not a new one). */
    explicitConfigId: z.boolean(),
    /** Per `#` path of the configuration and of each row: the ciphertext written and its plain text (see secret-values.ts). */
    secretValues: secret(secretValuesSchema),
  },
});

/** Kept for the manifest's schema: the inputs of a ComponentConfig. */
export const componentConfigInputsSchema = componentConfig.inputs;
export type ComponentConfigInputs = InputsOf<typeof componentConfig>;
type Parsed = CheckedOf<typeof componentConfig>;
type ParsedRow = Parsed["rows"][number];
type State = StateOf<typeof componentConfig>;

// Nothing but the schema's inputs: `variables` takes what `VariableConfig.binding()` returns as it is.
// (With the TypeScript 3.8 that Pulumi compiles a program with when it brings none, the inputs type
// is opaque; an interface adding members of its own would then refuse every other property.)
export interface ComponentConfigArgs extends ArgsOf<ComponentConfigInputs> {}

export interface ComponentConfig extends OutputsOf<typeof componentConfig> {}
export class ComponentConfig extends KeboolaResource {
  constructor(name: string, args: ComponentConfigArgs, opts?: pulumi.CustomResourceOptions) {
    declareConfig("ComponentConfig", name, args);
    super(kindProvider, componentConfig, name, args, opts, { plainSecrets: plainSecretPaths({ configuration: args.configuration, rows: args.rows }), ...componentConfigFacts(args) });
    declaredConfig("ComponentConfig", name, args, args.componentId, this);
  }
}

const what = (name: string) => `ComponentConfig "${name}"`;

// ---------------------------------------------------------------------------------------------
// Validation beyond the field schema

/** Generic Extractor pagination and jobs, on the raw inputs (values unknown at preview are skipped by checkWith). */
function genericExtractorFailures(news: Props): dynamic.CheckFailure[] {
  const input = userInputs(news);
  if (typeof input.componentId !== "string" || !isGenericExtractor(input.componentId)) return [];
  const rootPagination = (input.configuration as { parameters?: { api?: { pagination?: unknown } } } | undefined)?.parameters?.api?.pagination;
  const schema = z.looseObject({
    configuration: genericExtractorConfigurationSchema.optional(),
    rows: z.array(z.looseObject({ configuration: rowJobsSchema(rootPagination).optional() })).optional(),
  });
  return checkWith(schema, news).failures;
}

/**
 * Names declared by a binding, when known. At the first preview the VariableConfig's ids are
 * unknown but its `variables` are known (they are its inputs), so placeholders are checked then.
 */
function knownDeclared(binding: unknown): string[] | undefined {
  if (!binding || typeof binding !== "object") return undefined;
  const declared = (binding as { declared?: unknown }).declared;
  if (!Array.isArray(declared) || containsUnknown(declared)) return undefined;
  return declared.map((d) => (d && typeof d === "object" ? String((d as { name?: unknown }).name) : String(d)));
}

function placeholderSources(input: { configuration?: unknown; rows?: unknown }) {
  const sources: Array<{ value: unknown; path: PropertyKey[] }> = [{ value: input.configuration ?? {}, path: ["configuration"] }];
  if (Array.isArray(input.rows)) input.rows.forEach((r, i) => sources.push({ value: (r as { configuration?: unknown })?.configuration ?? {}, path: ["rows", i, "configuration"] }));
  return sources;
}

/** Undeclared placeholders (failures) and declared-but-unused variables (warnings). */
export function placeholderProblems(input: { configuration?: unknown; rows?: unknown }, declared: readonly string[]): { failures: dynamic.CheckFailure[]; warnings: string[] } {
  const report = checkPlaceholders(placeholderSources(input), declared);
  return {
    failures: report.undeclared.map((u) => ({ property: u.path, reason: undeclaredMessage(u, declared) })),
    warnings: report.unused.map((n) => `variable "${n}" is declared but no {{${n}}} placeholder in the configuration or its rows uses it`),
  };
}

// ---------------------------------------------------------------------------------------------
// Row reconciliation

export interface RowPlan {
  /** Per declared row: the id of the existing row it updates, or undefined to create it. */
  matched: Array<string | undefined>;
  /** Existing rows no declared row matches. */
  deletes: string[];
}

/**
 * Matches declared rows to existing ones. `recorded` is what state knows: the previous rows
 * (input-shaped) and their ids, index for index.
 */
export function planRows(desired: ReadonlyArray<{ rowId?: string; name: string }>, recorded: { rows: ReadonlyArray<{ rowId?: string; name: string }>; rowIds: readonly string[] }, existing: readonly ConfigRow[]): RowPlan {
  const exists = new Set(existing.map((r) => r.id));
  const claimed = new Set<string>();
  const matched: Array<string | undefined> = desired.map(() => undefined);
  const count = (names: string[]) => names.reduce((m, n) => m.set(n, (m.get(n) ?? 0) + 1), new Map<string, number>());
  const desiredNames = count(desired.map((d) => d.name));
  const recordedNames = count(recorded.rows.map((r) => r.name));
  const existingNames = count(existing.map((r) => r.name));
  const take = (i: number, id: string | undefined) => {
    if (id === undefined || !exists.has(id) || claimed.has(id)) return false;
    matched[i] = id;
    claimed.add(id);
    return true;
  };
  const open = (i: number) => desired[i].rowId === undefined && matched[i] === undefined;

  // 1. Explicit ids (a missing one is created with that id).
  desired.forEach((d, i) => {
    if (d.rowId !== undefined) {
      claimed.add(d.rowId);
      if (exists.has(d.rowId)) matched[i] = d.rowId;
    }
  });
  // 2. The recorded id of the row with the same name (names unique on both sides).
  desired.forEach((d, i) => {
    if (!open(i) || desiredNames.get(d.name) !== 1 || recordedNames.get(d.name) !== 1) return;
    take(i, recorded.rowIds[recorded.rows.findIndex((r) => r.name === d.name)]);
  });
  // 3. Renamed in place: the recorded row at the same position, if its name is gone.
  desired.forEach((_d, i) => {
    if (!open(i) || i >= recorded.rows.length || desiredNames.has(recorded.rows[i].name)) return;
    take(i, recorded.rowIds[i]);
  });
  // 4. An existing row of the same unique name that state does not know.
  desired.forEach((d, i) => {
    if (!open(i) || desiredNames.get(d.name) !== 1 || existingNames.get(d.name) !== 1) return;
    take(i, existing.find((r) => r.name === d.name)?.id);
  });
  return { matched, deletes: existing.filter((r) => !claimed.has(r.id)).map((r) => r.id) };
}

/** Rows in effective order: `rowsSortOrder` first (when set), then the rest as listed. */
export function orderedRows(c: Configuration): ConfigRow[] {
  const byId = new Map(c.rows.map((r) => [r.id, r]));
  const first = c.rowsSortOrder.filter((id) => byId.has(id)).map((id) => byId.get(id)!);
  return [...first, ...c.rows.filter((r) => !c.rowsSortOrder.includes(r.id))];
}

const rowDiffers = (remote: ConfigRow, d: ParsedRow) =>
  remote.name !== d.name || remote.description !== d.description || remote.isDisabled !== d.isDisabled || !same(remote.configuration, d.configuration);

// ---------------------------------------------------------------------------------------------
// Outputs

interface Intent {
  branchId: string;
  componentId: string;
  explicitConfigId: boolean;
  explicitRowIds: Set<string>;
  purgeOnDelete: boolean;
  adoptExisting: boolean;
  changeDescription?: string;
  /** Present when the configuration is bound to variables. */
  binding?: { declared?: VariableDeclaration[] };
  warnings: string[];
  /** What stands for the declared `#` values (rows by id; rows no longer there are dropped). */
  secretValues: SecretValues;
}

function stateOf(intent: Intent, c: Configuration): State {
  let configuration = c.configuration;
  let variables: State["variables"];
  if (intent.binding) {
    const { variables_id: vid, variables_values_id: vvid, ...rest } = configuration;
    configuration = rest;
    if (vid !== undefined && vid !== null && vid !== "") {
      variables = {
        configId: String(vid),
        ...(vvid !== undefined && vvid !== null && vvid !== "" ? { valuesRowId: String(vvid) } : {}),
        ...(intent.binding.declared ? { declared: intent.binding.declared } : {}),
      };
    }
  }
  const rows = orderedRows(c);
  const rowIds = new Set(rows.map((r) => r.id));
  return {
    branchId: intent.branchId,
    componentId: intent.componentId,
    configId: c.id,
    name: c.name,
    description: c.description,
    configuration: withoutPlainText(configuration),
    rows: rows.map((r) => ({
      ...(intent.explicitRowIds.has(r.id) ? { rowId: r.id } : {}),
      name: r.name,
      description: r.description,
      configuration: withoutPlainText(r.configuration),
      isDisabled: r.isDisabled,
    })),
    rowIds: rows.map((r) => r.id),
    isDisabled: c.isDisabled,
    version: c.version,
    purgeOnDelete: intent.purgeOnDelete,
    adoptExisting: intent.adoptExisting,
    explicitConfigId: intent.explicitConfigId,
    warnings: intent.warnings,
    secretValues: {
      configuration: intent.secretValues.configuration,
      rows: Object.fromEntries(Object.entries(intent.secretValues.rows).filter(([id]) => rowIds.has(id))),
    },
    ...(variables ? { variables } : {}),
    ...(intent.changeDescription !== undefined ? { changeDescription: intent.changeDescription } : {}),
  };
}

/** The configuration as written (its `#` values sealed) plus the variables references. */
function desiredConfiguration(p: Parsed, sealed: Record<string, unknown>): Record<string, unknown> {
  if (!p.variables) return sealed;
  const out: Record<string, unknown> = { ...sealed, variables_id: p.variables.configId };
  if (p.variables.valuesRowId) out.variables_values_id = p.variables.valuesRowId;
  return out;
}

/**
 * Before any write: the bound variables configuration exists, its values row too, and every
 * placeholder is declared. Returns the warnings (declared but unused).
 */
async function verifyBinding(storage: StorageApi, p: Parsed, label: string): Promise<string[]> {
  if (!p.variables) return [];
  const vars = await findLiveConfig(storage, p.branchId, VARIABLES_COMPONENT, p.variables.configId);
  if (!vars) {
    throw new Error(`${label}: variables.configId "${p.variables.configId}" is not a ${VARIABLES_COMPONENT} configuration in branch ${p.branchId} (missing or in the trash). Nothing was changed.`);
  }
  if (p.variables.valuesRowId && !vars.rows.some((r) => r.id === p.variables!.valuesRowId)) {
    throw new Error(`${label}: variables.valuesRowId "${p.variables.valuesRowId}" is not a row of variables configuration ${vars.id}. Nothing was changed.`);
  }
  const remoteDeclared = Array.isArray((vars.configuration as { variables?: unknown }).variables)
    ? ((vars.configuration as { variables: Array<{ name?: unknown }> }).variables.map((v) => String(v?.name)) as string[])
    : [];
  const names = p.variables.declared ? p.variables.declared.map((d) => d.name) : remoteDeclared;
  const { failures, warnings } = placeholderProblems(p, names);
  if (failures.length) {
    throw new Error(`${label}: ${failures.map((f) => `${f.property}: ${f.reason}`).join("; ")}. Nothing was changed.`);
  }
  return warnings;
}

function intentOf(p: Parsed, warnings: string[], secretValues: SecretValues): Intent {
  return {
    branchId: p.branchId,
    componentId: p.componentId,
    explicitConfigId: p.configId !== undefined,
    explicitRowIds: new Set(p.rows.flatMap((r) => (r.rowId ? [r.rowId] : []))),
    purgeOnDelete: p.purgeOnDelete,
    adoptExisting: p.adoptExisting,
    changeDescription: p.changeDescription,
    binding: p.variables ? { declared: p.variables.declared ?? undefined } : undefined,
    warnings,
    secretValues,
  };
}

/**
 * Brings the rows to the declared ones (see the top of the file); returns the row ids in the
 * declared order and whether anything was written. Writes only what differs.
 */
async function reconcileRows(
  storage: StorageApi,
  encrypt: Encrypt,
  p: Parsed,
  configId: string,
  current: Configuration,
  recorded: { rows: Array<{ rowId?: string; name: string }>; rowIds: string[]; secrets: Record<string, SealedDoc> },
): Promise<{ rowIds: string[]; wrote: boolean; secrets: Record<string, SealedDoc> }> {
  const changeDescription = p.changeDescription ?? DEFAULT_CHANGE_DESCRIPTION;
  const plan = planRows(p.rows, recorded, current.rows);
  let wrote = plan.deletes.length > 0;
  for (const id of plan.deletes) {
    await storage.deleteRow(p.branchId, p.componentId, configId, id, changeDescription).catch((err: unknown) => {
      if (!isNotFound(err)) throw err;
    });
  }
  const ids: string[] = [];
  const secrets: Record<string, SealedDoc> = {};
  for (const [i, d] of p.rows.entries()) {
    const id = plan.matched[i];
    // The row's `#` values are encrypted before the row is written (one request, only for new values).
    const sealed = await sealForWrite(encrypt, d.configuration, id === undefined ? undefined : recorded.secrets[id]);
    const row = { ...d, configuration: sealed.document };
    const body = { name: d.name, description: d.description, configuration: sealed.document, isDisabled: d.isDisabled, changeDescription };
    if (id === undefined) {
      const claimed = new Set([...ids, ...plan.matched.filter((m): m is string => m !== undefined)]);
      ids.push(await createRowOnce(storage, { branch: p.branchId, componentId: p.componentId, configId }, { ...(d.rowId ? { rowId: d.rowId } : {}), ...body }, claimed));
      wrote = true;
    } else {
      const remote = current.rows.find((r) => r.id === id)!;
      if (rowDiffers(remote, row)) {
        await storage.updateRow(p.branchId, p.componentId, configId, id, body);
        wrote = true;
      }
      ids.push(id);
    }
    secrets[ids[ids.length - 1]] = sealed.record;
  }
  return { rowIds: ids, wrote, secrets };
}

/** Writes the configuration's own fields and the row order, only what differs; returns the final state. */
async function finish(storage: StorageApi, p: Parsed, sealed: Record<string, unknown>, configId: string, rowIds: string[], afterRows: Configuration | undefined): Promise<Configuration> {
  const current = afterRows ?? normalizeConfig(await storage.getConfig(p.branchId, p.componentId, configId));
  const body: Parameters<StorageApi["updateConfig"]>[3] = {};
  if (current.name !== p.name) body.name = p.name;
  if (current.description !== p.description) body.description = p.description;
  if (current.isDisabled !== p.isDisabled) body.isDisabled = p.isDisabled;
  const configuration = desiredConfiguration(p, sealed);
  if (!same(current.configuration, configuration)) body.configuration = configuration;
  if (!same(orderedRows(current).map((r) => r.id), rowIds)) body.rowsSortOrder = rowIds;
  // A configuration taken over (adoptExisting) gets this resource's owner marker even when nothing else differs.
  const marker = splitMarker(p.changeDescription).owner;
  if (Object.keys(body).length === 0 && marker && splitMarker(current.changeDescription).owner !== marker) body.description = p.description;
  if (Object.keys(body).length === 0) return current;
  await storage.updateConfig(p.branchId, p.componentId, configId, { ...body, changeDescription: p.changeDescription ?? DEFAULT_CHANGE_DESCRIPTION });
  return normalizeConfig(await storage.getConfig(p.branchId, p.componentId, configId));
}

function recordedRows(olds: Partial<State>): { rows: Array<{ rowId?: string; name: string }>; rowIds: string[]; secrets: Record<string, SealedDoc> } {
  return { rows: olds.rows ?? [], rowIds: olds.rowIds ?? [], secrets: olds.secretValues?.rows ?? {} };
}

const NO_SECRETS: SecretValues = { configuration: {}, rows: {} };

/**
 * For diff: the declared rows as Keboola holds them when nothing changed. Each declared row is
 * matched to a recorded one as an update would match it, and its `#` values are sealed with that
 * row's recorded ciphertexts.
 */
function expectedRows(news: unknown, olds: Partial<State>): unknown {
  if (!Array.isArray(news)) return news;
  const recorded = recordedRows(olds);
  const desired = news.map((r) => ({ rowId: typeof r?.rowId === "string" ? r.rowId : undefined, name: String(r?.name ?? "") }));
  const existing = recorded.rowIds.map((id, i) => ({ id, name: recorded.rows[i]?.name ?? "" }) as ConfigRow);
  const plan = planRows(desired, recorded, existing);
  return news.map((r, i) => {
    const id = plan.matched[i];
    if (!r || typeof r !== "object" || !("configuration" in r)) return r;
    return { ...r, configuration: expectedRemote(r.configuration, id === undefined ? undefined : recorded.secrets[id]) };
  });
}

// ---------------------------------------------------------------------------------------------

export const handler: Handler<typeof componentConfig> = {
  async check(ctx, olds, news): Promise<dynamic.CheckResult> {
    const main = checkWith(componentConfig.inputs, news);
    const failures = [...main.failures, ...genericExtractorFailures(news)];
    const input = userInputs(news);
    // The declarations the binding passes (binding()), else those of the VariableConfig of this program it names.
    const declared = knownDeclared(input.variables) ?? knownDeclared(ctx.call.facts.boundVariables);
    if (declared) {
      const { failures: ph, warnings } = placeholderProblems(input as { configuration?: unknown; rows?: unknown }, declared);
      failures.push(...ph);
      // A dynamic provider cannot attach warnings to check results; its stderr is shown by the CLI.
      for (const w of warnings) console.warn(`warning: ${what(ctx.call.name)}: ${w}`);
    }
    const plain = ctx.call.facts.plainSecrets;
    if (Array.isArray(plain)) for (const path of plain) if (typeof path === "string") console.warn(plainSecretWarning(what(ctx.call.name), path));
    const unique = failures.filter((f, i) => failures.findIndex((g) => g.property === f.property && g.reason === f.reason) === i);
    if (!main.value) return { inputs: news, failures: unique };
    if (unique.length === 0 && !containsUnknown([news.branchId, news.componentId, news.configId])) {
      const v = main.value;
      const found = await firstFailure(
        () => branchFailure(ctx, v.branchId),
        () => componentFailure(ctx, v.componentId),
        async () => (isNew(olds, "configId") ? configSlotFailure(ctx, v, ctx.call.owner) : undefined),
      );
      if (found) unique.push(found);
    }
    return { inputs: { ...news, ...main.value }, failures: unique };
  },

  async diff(_ctx, _id, olds, news) {
    const replaces = [
      ...(!same(olds.branchId, news.branchId) ? ["branchId"] : []),
      ...(!same(olds.componentId, news.componentId) ? ["componentId"] : []),
      ...(configIdReplaces(olds, news) ? ["configId"] : []),
    ];
    // Only the references matter (declared only feeds the checks). Ids unknown at preview, while
    // the VariableConfig itself is updated, count as unchanged (see unknownAsOld).
    const binding = (v: unknown, old?: { configId?: unknown; valuesRowId?: unknown }) => {
      if (!v || typeof v !== "object") return v ? "(unknown)" : undefined;
      const b = v as { configId?: unknown; valuesRowId?: unknown };
      return { configId: unknownAsOld(old?.configId, b.configId), valuesRowId: unknownAsOld(old?.valuesRowId, b.valuesRowId ?? undefined) ?? undefined };
    };
    // `#` values are compared as Keboola holds them: the recorded ciphertext stands for an unchanged plain text.
    const expected: Props = {
      ...news,
      configuration: expectedRemote(news.configuration, olds.secretValues?.configuration),
      rows: expectedRows(news.rows, olds),
    };
    const updates = (["name", "description", "configuration", "rows", "isDisabled", "purgeOnDelete"] as const).filter((f) => !same(olds[f], expected[f]));
    const oldBinding = binding(olds.variables) as { configId?: unknown; valuesRowId?: unknown } | undefined;
    const changed: string[] = [...updates];
    if (!same(oldBinding, binding(news.variables, oldBinding))) changed.push("variables");
    return { changes: replaces.length + changed.length > 0, replaces, deleteBeforeReplace: false };
  },

  async create(ctx, p) {
    const label = what(ctx.call.name);
    const token = await assertCanManage(ctx, p.componentId, label);
    if (p.purgeOnDelete) assertCanPurge(token, label);
    const storage = ctx.client().storage;
    const warnings = await verifyBinding(storage, p, label);
    const encrypt = encryptorFor(ctx.client(), p.componentId);
    const root = await sealForWrite(encrypt, p.configuration, undefined);
    const intent = intentOf(p, warnings, { configuration: root.record, rows: {} });
    const owner = ctx.call.owner;
    const w = { ...p, changeDescription: withMarker(p.changeDescription ?? DEFAULT_CHANGE_DESCRIPTION, owner) };
    const { config, existed } = await createConfigOnce(storage, {
      branch: p.branchId,
      componentId: p.componentId,
      configId: p.configId,
      owner,
      adoptExisting: p.adoptExisting,
      label,
      body: {
        name: p.name,
        description: p.description,
        configuration: desiredConfiguration(p, root.document),
        isDisabled: p.isDisabled,
        changeDescription: w.changeDescription,
      },
    });
    const configId = config.id;
    const id = configResourceId(p.branchId, p.componentId, configId);
    try {
      // Rows of a configuration found again (after a crash or a lost answer) are matched by name.
      const { rowIds, wrote, secrets } = await reconcileRows(storage, encrypt, w, configId, config, { rows: [], rowIds: [], secrets: {} });
      intent.secretValues.rows = secrets;
      const final = await finish(storage, w, root.document, configId, rowIds, existed && !wrote ? config : undefined);
      return { id, outs: stateOf(intent, final) };
    } catch (err) {
      // The configuration exists: keep it in state so the next `up` finishes the rows.
      const left = await findLiveConfig(storage, p.branchId, p.componentId, configId).catch(() => undefined);
      if (left) throw new PartialFailure(`${label}: ${(err as Error).message}`, id, stateOf(intent, left));
      throw err;
    }
  },

  async read(ctx, id, recorded) {
    const { branch, componentId = "", configId = "" } = addressedConfig(id, recorded);
    const c = await findLiveConfig(ctx.client().storage, branch, componentId, configId);
    if (!c) return { id: "" };
    const recordedRowsOf = recordedRows(recorded);
    const oldBinding = recorded.variables;
    // On import nothing is recorded: a configuration with variables_id is taken as bound.
    const imported = recorded.rowIds === undefined;
    const bound = oldBinding !== undefined || (imported && c.configuration.variables_id !== undefined);
    const intent: Intent = {
      branchId: branch,
      componentId,
      explicitConfigId: recorded.explicitConfigId === true,
      explicitRowIds: new Set(recordedRowsOf.rows.flatMap((r) => (typeof r.rowId === "string" ? [r.rowId] : []))),
      purgeOnDelete: recorded.purgeOnDelete === true,
      adoptExisting: recorded.adoptExisting === true,
      changeDescription: recorded.changeDescription,
      binding: bound ? { declared: oldBinding?.declared ?? undefined } : undefined,
      warnings: [],
      secretValues: recorded.secretValues ?? NO_SECRETS,
    };
    // Warnings follow the configuration when the declarations are known; otherwise keep the recorded ones.
    const declared = oldBinding?.declared?.map((d) => d.name);
    const stripped = stateOf(intent, c);
    intent.warnings = declared ? placeholderProblems(stripped, declared).warnings : (recorded.warnings ?? []);
    const state = stateOf(intent, c);
    const { configId: _c, rowIds: _r, version: _v, warnings: _w, explicitConfigId: _e, secretValues: _s, ...inputs } = state;
    return { id: configResourceId(branch, componentId, c.id), props: state, inputs: intent.explicitConfigId ? { ...inputs, configId: c.id } : inputs };
  },

  async update(ctx, _id, olds, p) {
    const label = what(ctx.call.name);
    const token = await assertCanManage(ctx, p.componentId, label);
    if (p.purgeOnDelete) assertCanPurge(token, label);
    const storage = ctx.client().storage;
    const configId = olds.configId ?? p.configId ?? "";
    const current = await findLiveConfig(storage, p.branchId, p.componentId, configId);
    if (!current) throw new Error(`${label}: configuration ${configId} no longer exists (deleted or in the trash): run \`pulumi refresh\` to recreate it`);
    const warnings = await verifyBinding(storage, p, label);
    const w = { ...p, changeDescription: withMarker(p.changeDescription ?? DEFAULT_CHANGE_DESCRIPTION, ctx.call.owner ?? splitMarker(current.changeDescription).owner) };
    const encrypt = encryptorFor(ctx.client(), p.componentId);
    const root = await sealForWrite(encrypt, p.configuration, olds.secretValues?.configuration);
    const { rowIds, wrote, secrets } = await reconcileRows(storage, encrypt, w, configId, current, recordedRows(olds));
    // Re-read only when rows were written; otherwise `current` is still accurate.
    const final = await finish(storage, w, root.document, configId, rowIds, wrote ? undefined : current);
    return { outs: stateOf(intentOf(p, warnings, { configuration: root.record, rows: secrets }), final) };
  },

  async delete(ctx, id, recorded) {
    const { branch, componentId = "", configId = id } = addressedConfig(id, recorded);
    await deleteConfigResource(ctx, what(ctx.call.name), { branch, componentId, configId }, recorded.purgeOnDelete === true, ctx.call.owner);
  },
};

export const definition = componentConfig;
