import { asError } from "../../api/errors";
import { isRecord } from "../../../keboola/json";
import { z } from "zod";
import { branchSchema, storageIdSchema, STORAGE_ID } from "../../validation/ids";
import type * as dynamic from "@pulumi/pulumi/dynamic";
import type { Configuration, StorageApi } from "../../api/storage";
import { checkWith, containsUnknown, isUnknown, knownFields } from "../../validation/check";
import { variableDeclarationSchema, type VariableDeclaration } from "../../validation/variables";
import { checkPlaceholders, undeclaredMessage, type PlaceholderSource } from "../../validation/placeholders";
import { rowSharedCodeOf, sharedCodeOf, type SharedCodeUse } from "../../../keboola/shared-code";
import { genericExtractorConfigurationSchema, isGenericExtractor, rowJobsSchema } from "./generic-extractor";
import { same } from "../../lifecycle/common";
import { defineResource, secret, type CheckedOf, type InputsOf, type StateOf } from "../../lifecycle/define";
import type { CheckResponse, Handler } from "../../lifecycle/call";
import { PartialFailure, type Props } from "../../lifecycle/types";
import { withMarker } from "../../lifecycle/ownership";
import { encryptorFor, expectedRemote, sealForWrite, secretValuesSchema, withoutPlainText, type SealedDoc, type SecretValues } from "./secret-values";
import { branchFailure, componentFailure, configSlotFailure, firstFailure, isNew } from "../../lifecycle/preflight";
import {
  assertCanManage,
  beginConfigUpdate,
  assertCanPurge,
  configIdReplaces,
  configResourceId,
  createConfigOnce,
  deleteConfigResource,
  findLiveConfig,
  normalizeConfig,
  addressedConfig,
  unknownAsOld,
  adoptExistingSchema,
  takesOverBranchCopy,
  ADOPT_NEEDS_ID,
  DEFAULT_CHANGE_DESCRIPTION,
  VARIABLES_COMPONENT,
} from "../../lifecycle/configurations";
import { orderedRows, planRows, reconcileRows, withBinding } from "./rows";

// A component configuration with its rows, optionally bound to a VariableConfig.
//
// Rows are reconciled one by one, never replaced wholesale (config-rows.ts), and `rowsSortOrder`
// is written only when the order differs. The configuration owns all its rows.
//
// The `variables` binding writes `variables_id` / `variables_values_id` into the configuration's
// root. Every `{{placeholder}}` in the configuration and its rows must then be a declared
// variable: checked at preview when the declarations are known (pass `variableConfig.binding()`),
// and against the variables configuration itself before anything is written. A row may have a
// binding of its own (`rows[].variables`, written into the row's configuration; shared code rows
// name the variables their code uses this way): its placeholders are checked against that one.
// Links to shared code (`{{<row id>}}` of `shared_code_row_ids`, see validation/shared-code.ts)
// are not variables.

const jsonObject = z.record(z.string(), z.unknown(), { error: "must be an object (the JSON configuration)" });

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

export const rowInputsSchema = z
  .object({
    rowId: storageIdSchema("must not be empty")
      .optional()
      .describe("Stable row id: the row is created with it and always matched by it, so renames and reorders never recreate it. Chosen by Keboola when omitted."),
    // Storage allows a row without a name (the legacy `transformation` component's rows keep theirs
    // in their configuration: keboola-as-code internal/pkg/fixtures/configs/legacy-transformation.json),
    // so an empty name is valid where rowId identifies the row.
    name: z.string({ error: "required: the row name" }).default("").describe("Row name; rows without rowId are matched by it, so they need one."),
    description: z.string().default("").describe("Row description."),
    configuration: jsonObject.default({}).describe("The row's JSON configuration (merged into the root configuration when a job runs)."),
    isDisabled: z.boolean().default(false).describe("Disabled rows are skipped by jobs."),
    variables: variablesBindingSchema
      .optional()
      .describe("Bind this row to a VariableConfig (e.g. a shared code row to the variables its code uses): pass variableConfig.binding(). Written as the row's variables_id / variables_values_id."),
  })
  .strict();

const ROOT_VARIABLE_KEYS = ["variables_id", "variables_values_id"] as const;

export const componentConfig = defineResource({
  type: "ComponentConfig",
  description: "A component configuration with its rows, optionally bound to a VariableConfig.",
  inputs: {
    branchId: branchSchema,
    componentId: z
      .string({ error: 'required: the component id, e.g. "keboola.ex-generic-v2"' })
      .regex(STORAGE_ID, "must be a component id such as keboola.ex-generic-v2")
      .refine((id) => id !== VARIABLES_COMPONENT, { message: `use VariableConfig for ${VARIABLES_COMPONENT} configurations` })
      .describe("Component id, e.g. keboola.ex-generic-v2. Changing it replaces the configuration."),
    configId: storageIdSchema("must not be empty: omit it to let Keboola choose the id")
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
  // Each rule runs on what is known: an unknown row, row id or configuration (an output of another
  // resource) only leaves out the comparisons it is part of.
  refine: (v, ctx) => {
    if (v.adoptExisting === true && v.configId === undefined) ctx.addIssue({ code: "custom", path: ["adoptExisting"], message: ADOPT_NEEDS_ID });
    const rows = isUnknown(v.rows) ? [] : v.rows;
    const ids = new Map<string, number>();
    rows.forEach((r, i) => {
      if (isUnknown(r)) return;
      if (r.rowId === undefined && r.name === "") {
        ctx.addIssue({ code: "custom", path: ["rows", i, "name"], message: "must not be empty: a row without rowId is matched by its name; give it a name or a rowId" });
      }
      if (r.rowId === undefined || isUnknown(r.rowId)) return;
      const first = ids.get(r.rowId);
      if (first !== undefined) ctx.addIssue({ code: "custom", path: ["rows", i, "rowId"], message: `duplicate rowId "${r.rowId}" (also rows[${first}]): row ids must be unique` });
      else ids.set(r.rowId, i);
    });
    const rootVariablesIn = (configuration: unknown, at: PropertyKey[], message: (key: string) => string) => {
      if (!configuration || typeof configuration !== "object") return;
      for (const key of ROOT_VARIABLE_KEYS) if (key in configuration) ctx.addIssue({ code: "custom", path: [...at, key], message: message(key) });
    };
    if (v.variables) rootVariablesIn(v.configuration, ["configuration"], (key) => `is written from the variables input: remove ${key} from the configuration`);
    rows.forEach((r, i) => {
      if (isUnknown(r) || !r.variables) return;
      rootVariablesIn(r.configuration, ["rows", i, "configuration"], (key) => `is written from the row's variables input: remove ${key} from the row's configuration`);
    });
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
type Binding = NonNullable<Parsed["variables"]>;
type State = StateOf<typeof componentConfig>;

// Nothing but the schema's inputs: `variables` takes what `VariableConfig.binding()` returns as it is.
// (With the TypeScript 3.8 that Pulumi compiles a program with when it brings none, the inputs type
// is opaque; an interface adding members of its own would then refuse every other property.)

const what = (name: string) => `ComponentConfig "${name}"`;

// ---------------------------------------------------------------------------------------------
// Validation beyond the field schema

/** A member of a JSON object (inputs as the engine passes them); undefined for anything else. */
const field = (v: unknown, key: string): unknown => (isRecord(v) ? v[key] : undefined);

/** Generic Extractor pagination and jobs, on the raw inputs (values unknown at preview are skipped by checkWith). */
function genericExtractorFailures(news: Props): dynamic.CheckFailure[] {
  const input = news;
  if (typeof input.componentId !== "string" || !isGenericExtractor(input.componentId)) return [];
  const rootPagination = field(field(field(input.configuration, "parameters"), "api"), "pagination");
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
  const declared = field(binding, "declared");
  if (!Array.isArray(declared) || containsUnknown(declared)) return undefined;
  return declared.map((d) => String(isRecord(d) ? d.name : d));
}

/**
 * What the placeholders of a configuration or row are checked against: the names its binding
 * declares; `null` when it is bound but the names are not known (yet); `undefined` when it has no
 * binding of its own (a row then goes with the configuration's).
 */
export type DeclaredScope = readonly string[] | null | undefined;

/** The scopes of a configuration's inputs as check sees them (declarations from the bindings' `declared`). */
function scopesOf(input: { variables?: unknown; rows?: unknown }): { root: DeclaredScope; rows: DeclaredScope[] } {
  const scope = (binding: unknown): DeclaredScope => (binding === undefined || binding === null ? undefined : (knownDeclared(binding) ?? null));
  const rows = Array.isArray(input.rows) ? input.rows.map((r) => scope(field(r, "variables"))) : [];
  return { root: scope(input.variables), rows };
}

const unusedWarning = (name: string, where: string) => `variable "${name}" is declared but no {{${name}}} placeholder in ${where} uses it`;

/**
 * Undeclared placeholders (failures) and declared-but-unused variables (warnings): the
 * configuration and the rows without a binding of their own against `root`, each row with one
 * against `rows[i]`. Scopes that are `null` or `undefined` are not checked.
 */
export function placeholderProblems(input: { configuration?: unknown; rows?: unknown }, root: DeclaredScope, rows: readonly DeclaredScope[] = []): { failures: dynamic.CheckFailure[]; warnings: string[] } {
  const failures: dynamic.CheckFailure[] = [];
  const warnings: string[] = [];
  const rootConfig = input.configuration ?? {};
  const rowConfigs = Array.isArray(input.rows) ? input.rows.map((r) => field(r, "configuration") ?? {}) : [];
  const source = (value: unknown, path: PropertyKey[], use: SharedCodeUse | undefined): PlaceholderSource & { namesSharedCode: boolean } => ({
    value,
    path,
    linkIds: use?.rowIds ?? [],
    namesSharedCode: hasSharedCodeId(value) || hasSharedCodeId(rootConfig),
  });
  const check = (sources: Array<PlaceholderSource & { namesSharedCode: boolean }>, names: readonly string[], where: string) => {
    for (const s of sources) {
      for (const u of checkPlaceholders([s], names).undeclared) failures.push({ property: u.path, reason: undeclaredMessage(u, names, s.namesSharedCode) });
    }
    warnings.push(...checkPlaceholders(sources, names).unused.map((n) => unusedWarning(n, where)));
  };
  if (Array.isArray(root)) {
    const sources = [source(rootConfig, ["configuration"], sharedCodeOf(rootConfig))];
    rowConfigs.forEach((c, i) => {
      if (rows[i] === undefined) sources.push(source(c, ["rows", i, "configuration"], rowSharedCodeOf(rootConfig, c)));
    });
    check(sources, root, "the configuration or its rows");
  }
  rowConfigs.forEach((c, i) => {
    const names = rows[i];
    if (Array.isArray(names)) check([source(c, ["rows", i, "configuration"], rowSharedCodeOf(rootConfig, c))], names, `rows[${i}] (bound to its own variables)`);
  });
  return { failures, warnings };
}

const hasSharedCodeId = (v: unknown) => isRecord(v) && "shared_code_id" in v;

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
  /** The rows bound to variables of their own, by row id. */
  rowBindings: Map<string, { declared?: VariableDeclaration[] }>;
  warnings: string[];
  /** What stands for the declared `#` values (rows by id; rows no longer there are dropped). */
  secretValues: SecretValues;
}

/** A bound configuration or row as state holds it: the variables keys taken out into the binding. */
function splitBinding(configuration: Record<string, unknown>, declared: VariableDeclaration[] | undefined): { configuration: Record<string, unknown>; variables?: Binding } {
  const { variables_id: vid, variables_values_id: vvid, ...rest } = configuration;
  if (vid === undefined || vid === null || vid === "") return { configuration: rest };
  return {
    configuration: rest,
    variables: {
      configId: String(vid),
      ...(vvid !== undefined && vvid !== null && vvid !== "" ? { valuesRowId: String(vvid) } : {}),
      ...(declared ? { declared } : {}),
    },
  };
}

function stateOf(intent: Intent, c: Configuration): State {
  const root = intent.binding ? splitBinding(c.configuration, intent.binding.declared) : { configuration: c.configuration };
  const rows = orderedRows(c);
  const rowIds = new Set(rows.map((r) => r.id));
  return {
    branchId: intent.branchId,
    componentId: intent.componentId,
    configId: c.id,
    name: c.name,
    description: c.description,
    configuration: withoutPlainText(root.configuration),
    rows: rows.map((r) => {
      const bound = intent.rowBindings.get(r.id);
      const row = bound ? splitBinding(r.configuration, bound.declared) : { configuration: r.configuration };
      return {
        ...(intent.explicitRowIds.has(r.id) ? { rowId: r.id } : {}),
        name: r.name,
        description: r.description,
        configuration: withoutPlainText(row.configuration),
        isDisabled: r.isDisabled,
        ...(row.variables ? { variables: row.variables } : {}),
      };
    }),
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
    ...(root.variables ? { variables: root.variables } : {}),
    changeDescription: intent.changeDescription, // left out of the state when undefined (runtime.ts withIdentity)
  };
}

/**
 * Before any write: each bound variables configuration (the configuration's, and each row's own)
 * exists, its values row too, and every placeholder is declared. Returns the warnings (declared
 * but unused).
 */
async function verifyBinding(storage: StorageApi, p: Parsed, label: string): Promise<string[]> {
  const names = async (b: Binding, where: string): Promise<string[]> => {
    const vars = await findLiveConfig(storage, p.branchId, VARIABLES_COMPONENT, b.configId);
    if (!vars) {
      throw new Error(`${label}: ${where}.configId "${b.configId}" is not a ${VARIABLES_COMPONENT} configuration in branch ${p.branchId} (missing or in the trash). Nothing was changed.`);
    }
    if (b.valuesRowId && !vars.rows.some((r) => r.id === b.valuesRowId)) {
      throw new Error(`${label}: ${where}.valuesRowId "${b.valuesRowId}" is not a row of variables configuration ${vars.id}. Nothing was changed.`);
    }
    if (b.declared) return b.declared.map((d) => d.name);
    const remote = vars.configuration.variables;
    return Array.isArray(remote) ? remote.map((v) => String(field(v, "name"))) : [];
  };
  const root = p.variables ? await names(p.variables, "variables") : undefined;
  const rows: DeclaredScope[] = [];
  for (const [i, r] of p.rows.entries()) rows.push(r.variables ? await names(r.variables, `rows[${i}].variables`) : undefined);
  if (root === undefined && rows.every((r) => r === undefined)) return [];
  const { failures, warnings } = placeholderProblems(p, root, rows);
  if (failures.length) {
    throw new Error(`${label}: ${failures.map((f) => `${f.property}: ${f.reason}`).join("; ")}. Nothing was changed.`);
  }
  return warnings;
}

/** The row bindings of declared rows, by the ids the rows got. */
function rowBindingsOf(p: Parsed, rowIds: readonly string[]): Intent["rowBindings"] {
  const out: Intent["rowBindings"] = new Map();
  p.rows.forEach((r, i) => {
    if (r.variables && rowIds[i] !== undefined) out.set(rowIds[i], { declared: r.variables.declared ?? undefined });
  });
  return out;
}

function intentOf(p: Parsed, warnings: string[], secretValues: SecretValues, rowIds: readonly string[] = []): Intent {
  return {
    branchId: p.branchId,
    componentId: p.componentId,
    explicitConfigId: p.configId !== undefined,
    explicitRowIds: new Set(p.rows.flatMap((r) => (r.rowId ? [r.rowId] : []))),
    purgeOnDelete: p.purgeOnDelete,
    adoptExisting: p.adoptExisting,
    changeDescription: p.changeDescription,
    binding: p.variables ? { declared: p.variables.declared ?? undefined } : undefined,
    rowBindings: rowBindingsOf(p, rowIds),
    warnings,
    secretValues,
  };
}

/**
 * Brings the rows to the declared ones (see the top of the file); returns the row ids in the
 * declared order and whether anything was written. Writes only what differs.
 */
/** Writes the configuration's own fields and the row order, only what differs; returns the final state. */
async function finish(storage: StorageApi, p: Parsed, sealed: Record<string, unknown>, configId: string, rowIds: string[], afterRows: Configuration | undefined): Promise<Configuration> {
  const current = afterRows ?? normalizeConfig(await storage.getConfig(p.branchId, p.componentId, configId));
  const body: Parameters<StorageApi["updateConfig"]>[3] = {};
  if (current.name !== p.name) body.name = p.name;
  if (current.description !== p.description) body.description = p.description;
  if (current.isDisabled !== p.isDisabled) body.isDisabled = p.isDisabled;
  const configuration = withBinding(sealed, p.variables);
  if (!same(current.configuration, configuration)) body.configuration = configuration;
  if (!same(orderedRows(current).map((r) => r.id), rowIds)) body.rowsSortOrder = rowIds;
  if (Object.keys(body).length === 0) return current;
  await storage.updateConfig(p.branchId, p.componentId, configId, { ...body, changeDescription: p.changeDescription ?? DEFAULT_CHANGE_DESCRIPTION });
  return normalizeConfig(await storage.getConfig(p.branchId, p.componentId, configId));
}

function recordedRows(olds: Partial<State>): { rows: Array<{ rowId?: string; name: string }>; rowIds: string[]; secrets: Record<string, SealedDoc> } {
  return { rows: olds.rows ?? [], rowIds: olds.rowIds ?? [], secrets: olds.secretValues?.rows ?? {} };
}

const NO_SECRETS: SecretValues = { configuration: {}, rows: {} };

/**
 * For diff, a binding by its references only (declared only feeds the checks). Ids unknown at
 * preview, while the VariableConfig itself is updated, count as unchanged (see unknownAsOld).
 */
function bindingRefs(v: unknown, old?: BindingRefs): BindingRefs | "(unknown)" | undefined {
  if (!isRecord(v)) return v ? "(unknown)" : undefined;
  return { configId: unknownAsOld(old?.configId, v.configId), valuesRowId: unknownAsOld(old?.valuesRowId, v.valuesRowId ?? undefined) ?? undefined };
}

/** A binding by its references, as diff compares it. */
interface BindingRefs {
  configId?: unknown;
  valuesRowId?: unknown;
}

/** For diff: recorded rows with their bindings by references only. */
function recordedRowsForDiff(rows: unknown): unknown {
  if (!Array.isArray(rows)) return rows;
  return rows.map((r) => (isRecord(r) && "variables" in r ? { ...r, variables: bindingRefs(r.variables) } : r));
}

/**
 * For diff: the declared rows as Keboola holds them when nothing changed. Each declared row is
 * matched to a recorded one as an update would match it, its `#` values are sealed with that
 * row's recorded ciphertexts, and its binding is compared by references (as the configuration's).
 */
function expectedRows(news: unknown, olds: Partial<State>): unknown {
  if (!Array.isArray(news)) return news;
  const recorded = recordedRows(olds);
  const desired = news.map((r) => ({ rowId: typeof r?.rowId === "string" ? r.rowId : undefined, name: String(r?.name ?? "") }));
  const existing = recorded.rowIds.map((id, i) => ({ id, name: recorded.rows[i]?.name ?? "" }));
  const plan = planRows(desired, recorded, existing);
  return news.map((r, i) => {
    const id = plan.matched[i];
    if (!r || typeof r !== "object" || !("configuration" in r)) return r;
    const oldRow = id === undefined ? undefined : olds.rows?.[recorded.rowIds.indexOf(id)];
    const variables = "variables" in r ? { variables: bindingRefs(r.variables, oldRow?.variables) } : {};
    return { ...r, configuration: expectedRemote(r.configuration, id === undefined ? undefined : recorded.secrets[id]), ...variables };
  });
}

// ---------------------------------------------------------------------------------------------

export const handler: Handler<typeof componentConfig> = {
  async check(req): Promise<CheckResponse> {
    const { olds, news } = req;
    const main = checkWith(componentConfig, news);
    const failures = [...main.failures, ...genericExtractorFailures(news)];
    const input = news;
    // A binding whose declarations are not known yet (an Output): those of the VariableConfig of
    // this program it names, when there is one.
    const scopes = scopesOf(input);
    if (scopes.root === null) scopes.root = knownDeclared(req.call.facts.boundVariables) ?? null;
    const { failures: ph, warnings } = placeholderProblems(input, scopes.root, scopes.rows);
    failures.push(...ph);
    // A dynamic provider cannot attach warnings to check results; its stderr is shown by the CLI.
    for (const w of warnings) console.warn(`warning: ${what(req.call.name)}: ${w}`);
    const plain = req.call.facts.plainSecrets;
    if (Array.isArray(plain)) for (const path of plain) if (typeof path === "string") console.warn(plainSecretWarning(what(req.call.name), path));
    const unique = failures.filter((f, i) => failures.findIndex((g) => g.property === f.property && g.reason === f.reason) === i);
    if (!main.value) return { inputs: news, failures: unique };
    // Against the stack, each check on the inputs it needs, when they are known.
    const v = main.value;
    const at = knownFields(v, ["branchId", "componentId"]);
    const slot = knownFields(v, ["branchId", "componentId", "configId", "adoptExisting"]);
    if (unique.length === 0 && !isUnknown(v.branchId)) {
      const found = await firstFailure(
        () => branchFailure(req, v.branchId),
        async () => (at ? componentFailure(req, at.componentId, at.branchId) : undefined),
        async () => (slot && isNew(olds, { branchId: slot.branchId, componentId: slot.componentId, configId: slot.configId }) ? configSlotFailure(req, { ...slot, adoptExisting: takesOverBranchCopy(req.call.facts, slot.adoptExisting) }, req.call.owner) : undefined),
      );
      if (found) unique.push(found);
    }
    return { inputs: { ...news, ...main.value }, failures: unique };
  },

  async diff(req) {
    const { olds, news } = req;
    const replaces = [
      ...(!same(olds.branchId, news.branchId) ? ["branchId"] : []),
      ...(!same(olds.componentId, news.componentId) ? ["componentId"] : []),
      ...(configIdReplaces(olds, news) ? ["configId"] : []),
    ];
    // `#` values are compared as Keboola holds them: the recorded ciphertext stands for an unchanged plain text.
    const expected: Props = {
      ...news,
      configuration: expectedRemote(news.configuration, olds.secretValues?.configuration),
      rows: expectedRows(news.rows, olds),
    };
    const recorded: Props = { ...olds, rows: recordedRowsForDiff(olds.rows) };
    const updates = (["name", "description", "configuration", "rows", "isDisabled", "purgeOnDelete"] as const).filter((f) => !same(recorded[f], expected[f]));
    const oldBinding = bindingRefs(olds.variables);
    const changed: string[] = [...updates];
    if (!same(oldBinding, bindingRefs(news.variables, oldBinding === "(unknown)" ? undefined : oldBinding))) changed.push("variables");
    return { changes: replaces.length + changed.length > 0, replaces, deleteBeforeReplace: false };
  },

  async create(req) {
    const { inputs: p } = req;
    const label = what(req.call.name);
    const token = await assertCanManage(req, p.componentId, label);
    if (p.purgeOnDelete) assertCanPurge(token, label);
    const storage = req.client().storage;
    const warnings = await verifyBinding(storage, p, label);
    const encrypt = encryptorFor(req.client(), p.componentId);
    const root = await sealForWrite(encrypt, p.configuration, undefined);
    const intent = intentOf(p, warnings, { configuration: root.record, rows: {} });
    const owner = req.call.owner;
    const w = { ...p, changeDescription: withMarker(p.changeDescription ?? DEFAULT_CHANGE_DESCRIPTION, owner) };
    const { config, existed } = await createConfigOnce(storage, {
      branch: p.branchId,
      componentId: p.componentId,
      configId: p.configId,
      owner,
      adoptExisting: takesOverBranchCopy(req.call.facts, p.adoptExisting),
      inBranchOfProgram: takesOverBranchCopy(req.call.facts, false),
      label,
      body: {
        name: p.name,
        description: p.description,
        configuration: withBinding(root.document, p.variables),
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
      intent.rowBindings = rowBindingsOf(p, rowIds);
      const final = await finish(storage, w, root.document, configId, rowIds, existed && !wrote ? config : undefined);
      return { id, outs: stateOf(intent, final) };
    } catch (err) {
      // The configuration exists: keep it in state so the next `up` finishes the rows.
      const left = await findLiveConfig(storage, p.branchId, p.componentId, configId).catch(() => undefined);
      if (left) throw new PartialFailure(`${label}: ${asError(err).message}`, id, stateOf(intent, left));
      throw err;
    }
  },

  async read(req) {
    const { id, recorded } = req;
    const { branch, componentId = "", configId = "" } = addressedConfig(id, recorded);
    const c = await findLiveConfig(req.client().storage, branch, componentId, configId);
    if (!c) return { id: "" };
    const recordedRowsOf = recordedRows(recorded);
    const oldBinding = recorded.variables;
    // On import nothing is recorded: a configuration with variables_id is taken as bound.
    const imported = recorded.rowIds === undefined;
    const bound = oldBinding !== undefined || (imported && c.configuration.variables_id !== undefined);
    const rowBindings: Intent["rowBindings"] = new Map();
    recordedRowsOf.rowIds.forEach((rowId, i) => {
      const v = recorded.rows?.[i]?.variables;
      if (v) rowBindings.set(rowId, { declared: v.declared ?? undefined });
    });
    if (imported) for (const r of c.rows) if (r.configuration.variables_id !== undefined) rowBindings.set(r.id, {});
    const intent: Intent = {
      branchId: branch,
      componentId,
      explicitConfigId: recorded.explicitConfigId === true,
      explicitRowIds: new Set(recordedRowsOf.rows.flatMap((r) => (typeof r.rowId === "string" ? [r.rowId] : []))),
      purgeOnDelete: recorded.purgeOnDelete === true,
      adoptExisting: recorded.adoptExisting === true,
      changeDescription: recorded.changeDescription,
      binding: bound ? { declared: oldBinding?.declared ?? undefined } : undefined,
      rowBindings,
      warnings: [],
      secretValues: recorded.secretValues ?? NO_SECRETS,
    };
    // Warnings follow the configuration when the declarations are known; otherwise keep the recorded ones.
    const stripped = stateOf(intent, c);
    const names = (b: Binding | undefined) => b?.declared?.map((d) => d.name);
    const root: DeclaredScope = names(oldBinding) ?? (bound ? null : undefined);
    const rows = stripped.rows.map((r): DeclaredScope => (r.variables ? (names(r.variables) ?? null) : undefined));
    const known = Array.isArray(root) || rows.some((r) => Array.isArray(r));
    intent.warnings = known ? placeholderProblems(stripped, root, rows).warnings : (recorded.warnings ?? []);
    const state = stateOf(intent, c);
    const { configId: _c, rowIds: _r, version: _v, warnings: _w, explicitConfigId: _e, secretValues: _s, ...inputs } = state;
    return { id: configResourceId(branch, componentId, c.id), props: state, inputs: intent.explicitConfigId ? { ...inputs, configId: c.id } : inputs };
  },

  async update(req) {
    const { olds, news: p } = req;
    const label = what(req.call.name);
    const configId = olds.configId ?? p.configId ?? "";
    const { storage, current, changeDescription } = await beginConfigUpdate(req, label, { branch: p.branchId, componentId: p.componentId, configId }, p, req.call.owner);
    const warnings = await verifyBinding(storage, p, label);
    const w = { ...p, changeDescription };
    const encrypt = encryptorFor(req.client(), p.componentId);
    const root = await sealForWrite(encrypt, p.configuration, olds.secretValues?.configuration);
    const { rowIds, wrote, secrets } = await reconcileRows(storage, encrypt, w, configId, current, recordedRows(olds));
    // Re-read only when rows were written; otherwise `current` is still accurate.
    const final = await finish(storage, w, root.document, configId, rowIds, wrote ? undefined : current);
    return { outs: stateOf(intentOf(p, warnings, { configuration: root.record, rows: secrets }, rowIds), final) };
  },

  async delete(req) {
    const { id, recorded } = req;
    const { branch, componentId = "", configId = id } = addressedConfig(id, recorded);
    await deleteConfigResource(req, what(req.call.name), { branch, componentId, configId }, recorded.purgeOnDelete === true, req.call.owner);
  },
};

export const definition = componentConfig;

/** The warning a literal, non-secret `#` value of the program gets (the program says which: plainSecretPaths). */
export function plainSecretWarning(what: string, path: string): string {
  return (
    `warning: ${what}: ${path} is a literal, non-secret value, so Pulumi keeps it in plain text in the program and in its state ` +
    `(Keboola gets it encrypted). Pass pulumi.secret(...) or read it from stack config (pulumi config set --secret <key> <value>, then config.requireSecret("<key>")).`
  );
}
