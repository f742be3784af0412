import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { branchSchema } from "../validation/ids";
import type * as dynamic from "@pulumi/pulumi/dynamic";
import type { ConfigRow, Configuration, StorageApi } from "../api/storage";
import { isNotFound } from "../api/errors";
import { checkWith, containsUnknown, parseChecked } from "../validation/check";
import { branchFailure, configSlotFailure, firstFailure, isNew } from "./preflight";
import { resourceArgs, resourceName, same, type ArgsOf } from "./common";
import kindProvider from "../kinds/variable-config";
import { PartialFailure, type Props, type ResourceHandler } from "./types";
import {
  configResourceId,
  parseConfigResourceId,
  assertCanManage,
  assertCanPurge,
  findLiveConfig,
  normalizeConfig,
  deleteConfiguration,
  configIdReplaces,
  createConfigOnce,
  createRowOnce,
  adoptExistingSchema,
  ADOPT_NEEDS_ID,
} from "./configurations";
import { ownerOf, splitMarker, withMarker } from "./ownership";
import { declareConfig } from "./program";

// Configuration variables: a `keboola.variables` configuration declaring `{name, type}` pairs,
// with the default values in one row of it (`{"values": [{name, value}]}`, every value a
// string). A ComponentConfig binds to it (its `variables` input) and jobs substitute the values
// into `{{name}}` placeholders. Changing a default value updates that row in place; the
// configuration itself is written only when its name, description or declarations change.

export const VARIABLES_COMPONENT = "keboola.variables";
export const VALUES_ROW_NAME = "Default values";
export const DEFAULT_CHANGE_DESCRIPTION = "Updated by Pulumi";

export const variableNameSchema = z
  .string({ error: "must be a string (the variable name)" })
  .min(1, "must not be empty")
  .max(64, "must be at most 64 characters")
  .regex(
    /^[A-Za-z0-9_-]+$/,
    "must consist of letters, digits, _ and - only (it is used as {{name}}; a dot would make Mustache look inside another variable)",
  );

export const variableTypeSchema = z.enum(["string", "int"], { error: 'must be "string" or "int"' });

export const variableDeclarationSchema = z
  .object({
    name: variableNameSchema.describe("Variable name, referenced as {{name}} in configurations."),
    type: variableTypeSchema.default("string").describe('"string" or "int" (values are always stored as strings).'),
  })
  .strict();

export type VariableDeclaration = z.output<typeof variableDeclarationSchema>;

/** Declarations without duplicated names (the duplicate is reported at its own `name`). */
export const variableDeclarationsSchema = z.array(variableDeclarationSchema, { error: "must be an array of {name, type}" }).superRefine((vars, ctx) => {
  const seen = new Map<string, number>();
  vars.forEach((v, i) => {
    const first = seen.get(v.name);
    if (first !== undefined) {
      ctx.addIssue({ code: "custom", path: [i, "name"], message: `duplicate variable name "${v.name}" (already declared at variables[${first}]): declare each variable once` });
    } else {
      seen.set(v.name, i);
    }
  });
});

/** Values are strings in Keboola; a number is taken as its text (so 3 and "3" are the same value, never a diff). */
export const variableValueSchema = z
  .union([z.string(), z.number(), z.boolean()], { error: "must be a string (or a number, written as its text)" })
  .transform((v) => String(v));

/** `{name: value}` maps as users write them; the service stores `[{name, value}]` with string values. */
export const variableValuesSchema = z.record(z.string(), variableValueSchema, { error: "must be an object of variable name to value" });

export const stringValue = (v: string | number | boolean): string => String(v);

const INT = /^-?\d+$/;

/** Problems of `{name: value}` against declarations: undeclared names and non-integer `int` values. */
export function valueIssues(values: Record<string, string | number | boolean>, declared: readonly VariableDeclaration[]): Array<{ name: string; message: string }> {
  const out: Array<{ name: string; message: string }> = [];
  const names = declared.map((d) => d.name).join(", ") || "none";
  for (const [name, raw] of Object.entries(values)) {
    const decl = declared.find((d) => d.name === name);
    if (!decl) {
      out.push({ name, message: `"${name}" is not a declared variable (declared: ${names}): declare it in variables, e.g. {name: "${name}", type: "string"}, or remove this value` });
    } else if (decl.type === "int" && !INT.test(stringValue(raw))) {
      out.push({ name, message: `${JSON.stringify(raw)} is not an integer, but variable "${name}" is declared as int: write a whole number such as "10", or declare the variable as "string"` });
    }
  }
  return out;
}

export const variableConfigInputsSchema = z
  .object({
    branchId: branchSchema,
    configId: z
      .string()
      .min(1, "must not be empty: omit it to let Keboola choose the id")
      .regex(/^[A-Za-z0-9._-]+$/, "must be letters, digits, '.', '_' or '-'")
      .optional()
      .describe("Configuration id; chosen by Keboola when omitted. Changing it replaces the configuration."),
    name: z.string({ error: "required: the configuration name" }).min(1, "must not be empty").describe("Configuration name."),
    description: z.string().default("").describe("Configuration description."),
    variables: variableDeclarationsSchema.describe('Declared variables: [{name, type: "string"|"int"}].'),
    defaultValues: variableValuesSchema
      .optional()
      .describe("Default values, {name: value}, stored as a values row of the configuration; jobs use them when given no values. Omit to have no values row."),
    changeDescription: z.string().optional().describe(`Version description written with each change (default "${DEFAULT_CHANGE_DESCRIPTION}").`),
    purgeOnDelete: z.boolean().default(false).describe("On delete, also purge the configuration from the trash (default: it stays in the trash and can be restored)."),
    adoptExisting: adoptExistingSchema,
  })
  .strict()
  .superRefine((v, ctx) => {
    if (v.adoptExisting && v.configId === undefined) ctx.addIssue({ code: "custom", path: ["adoptExisting"], message: ADOPT_NEEDS_ID });
    for (const issue of valueIssues(v.defaultValues ?? {}, v.variables)) ctx.addIssue({ code: "custom", path: ["defaultValues", issue.name], message: issue.message });
  });

export type VariableConfigInputs = z.input<typeof variableConfigInputsSchema>;

/** What a VariableConfig has besides its inputs. */
export const variableConfigOutputsSchema = z.object({
  configId: z.string().describe("Id of the keboola.variables configuration."),
  valuesRowId: z.string().optional().describe("Id of the row holding the default values (absent without defaultValues)."),
  version: z.number().int().describe("Configuration version."),
});
type Parsed = z.output<typeof variableConfigInputsSchema>;

const OUTPUTS = ["branchId", "configId", "valuesRowId", "description", "defaultValues", "version"] as const;

export interface VariableConfigArgs extends ArgsOf<VariableConfigInputs> {}

/** What a ComponentConfig's `variables` input takes: pass `variableConfig.binding()`. */
export interface VariablesBinding {
  configId: pulumi.Input<string>;
  valuesRowId?: pulumi.Input<string | undefined>;
  declared?: pulumi.Input<Array<pulumi.Input<{ name: pulumi.Input<string>; type?: pulumi.Input<"string" | "int"> }>>>;
}

export class VariableConfig extends pulumi.dynamic.Resource {
  declare readonly branchId: pulumi.Output<string>;
  declare readonly configId: pulumi.Output<string>;
  /** Id of the row holding the default values (undefined without defaultValues). */
  declare readonly valuesRowId: pulumi.Output<string | undefined>;
  declare readonly name: pulumi.Output<string>;
  declare readonly description: pulumi.Output<string>;
  declare readonly variables: pulumi.Output<VariableDeclaration[]>;
  declare readonly defaultValues: pulumi.Output<Record<string, string | number | boolean> | undefined>;
  declare readonly version: pulumi.Output<number>;

  constructor(name: string, args: VariableConfigArgs, opts?: pulumi.CustomResourceOptions) {
    declareConfig("VariableConfig", name, { ...args, componentId: VARIABLES_COMPONENT });
    super(...resourceArgs(kindProvider, "VariableConfig", name, args, OUTPUTS, [], opts));
  }

  /**
   * The value for a ComponentConfig's `variables` input: the configuration, its values row and the
   * declarations (known at preview, so placeholders are checked before anything is created).
   */
  binding(): VariablesBinding {
    return { configId: this.configId, valuesRowId: this.valuesRowId, declared: this.variables };
  }
}

// ---------------------------------------------------------------------------------------------
// VariableConfig handler

const what = (props: Props) => `VariableConfig "${resourceName(props)}"`;

function valuesRowConfiguration(p: Pick<Parsed, "variables" | "defaultValues">): Record<string, unknown> {
  const values = p.defaultValues ?? {};
  // Declaration order: stable, so a reordered map literal is not a change.
  return { values: p.variables.filter((v) => v.name in values).map((v) => ({ name: v.name, value: stringValue(values[v.name]) })) };
}

/** Remote values -> the user's `{name: value}`, keeping the user's spelling when equal as text (10 vs "10"). */
function valuesFromRow(row: ConfigRow, mine: Record<string, string | number | boolean> | undefined): Record<string, string | number | boolean> {
  const list = Array.isArray((row.configuration as { values?: unknown }).values) ? (row.configuration as { values: Array<{ name?: unknown; value?: unknown }> }).values : [];
  const out: Record<string, string | number | boolean> = {};
  for (const item of list) {
    if (typeof item?.name !== "string") continue;
    const remote = item.value === undefined || item.value === null ? "" : String(item.value);
    const m = mine?.[item.name];
    out[item.name] = m !== undefined && stringValue(m) === remote ? m : remote;
  }
  return out;
}

function declarationsFrom(c: Configuration): VariableDeclaration[] {
  const vars = (c.configuration as { variables?: unknown }).variables;
  if (!Array.isArray(vars)) return [];
  return vars
    .filter((v): v is { name: string; type?: string } => !!v && typeof v === "object" && typeof (v as { name?: unknown }).name === "string")
    .map((v) => ({ name: v.name, type: v.type === "int" ? "int" : "string" }));
}

interface Intent {
  branchId: string;
  explicitConfigId: boolean;
  purgeOnDelete: boolean;
  changeDescription?: string;
  defaultValues?: Record<string, string | number | boolean>;
  name: string;
}

function outputs(intent: Intent, c: Configuration, valuesRowId: string | undefined): Props {
  const row = valuesRowId ? c.rows.find((r) => r.id === valuesRowId) : undefined;
  const out: Props = {
    branchId: intent.branchId,
    configId: c.id,
    name: c.name,
    description: c.description,
    variables: declarationsFrom(c),
    defaultValues: row ? valuesFromRow(row, intent.defaultValues) : undefined,
    valuesRowId: row?.id,
    version: c.version,
    purgeOnDelete: intent.purgeOnDelete,
    explicitConfigId: intent.explicitConfigId,
    __resourceName: intent.name,
  };
  if (intent.changeDescription !== undefined) out.changeDescription = intent.changeDescription;
  return out;
}

function intentOf(p: Parsed, explicitConfigId: boolean, props: Props): Intent {
  return {
    branchId: p.branchId,
    explicitConfigId,
    purgeOnDelete: p.purgeOnDelete,
    changeDescription: p.changeDescription,
    defaultValues: p.defaultValues,
    name: resourceName(props),
  };
}

/**
 * Brings an existing variables configuration to the declared state, writing only what differs;
 * returns the id of the values row (created, found or removed).
 */
async function converge(storage: StorageApi, p: Parsed, configId: string, current: Configuration, valuesRowId: string | undefined, changeDescription: string): Promise<string | undefined> {
  const body: { name?: string; description?: string; configuration?: Record<string, unknown> } = {};
  if (current.name !== p.name) body.name = p.name;
  if (current.description !== p.description) body.description = p.description;
  // Other keys someone added to the configuration are kept.
  if (!same(declarationsFrom(current), p.variables)) body.configuration = { ...current.configuration, variables: p.variables };
  // A configuration taken over (adoptExisting) gets this resource's owner marker even when nothing else differs.
  const marker = splitMarker(changeDescription).owner;
  if (Object.keys(body).length === 0 && marker && splitMarker(current.changeDescription).owner !== marker) body.description = p.description;
  if (Object.keys(body).length) await storage.updateConfig(p.branchId, VARIABLES_COMPONENT, configId, { ...body, changeDescription });

  const row = valuesRowId ? current.rows.find((r) => r.id === valuesRowId) : undefined;
  if (p.defaultValues === undefined) {
    if (row) {
      await storage.deleteRow(p.branchId, VARIABLES_COMPONENT, configId, row.id, changeDescription).catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
    }
    return undefined;
  }
  const desired = valuesRowConfiguration(p);
  if (!row) {
    const where = { branch: p.branchId, componentId: VARIABLES_COMPONENT, configId };
    return createRowOnce(storage, where, { name: VALUES_ROW_NAME, configuration: desired, changeDescription }, new Set());
  }
  if (!same(row.configuration, desired)) {
    await storage.updateRow(p.branchId, VARIABLES_COMPONENT, configId, row.id, { configuration: desired, changeDescription });
  }
  return row.id;
}

export const handler: ResourceHandler = {
  async check(ctx, olds, news): Promise<dynamic.CheckResult> {
    const { value, failures } = checkWith(variableConfigInputsSchema, news);
    if (!value) return { inputs: news, failures };
    if (failures.length === 0 && !containsUnknown([news.branchId, news.configId])) {
      const found = await firstFailure(
        () => branchFailure(ctx, value.branchId),
        async () => (isNew(olds, "configId") ? configSlotFailure(ctx, { ...value, componentId: VARIABLES_COMPONENT }, ownerOf(news)) : undefined),
      );
      if (found) failures.push(found);
    }
    return { inputs: { ...news, ...value }, failures };
  },

  async diff(_ctx, _id, olds, news) {
    const replaces = [...(!same(olds.branchId, news.branchId) ? ["branchId"] : []), ...(configIdReplaces(olds, news) ? ["configId"] : [])];
    const updates = ["name", "description", "variables", "defaultValues", "purgeOnDelete"].filter((f) => !same(olds[f], news[f]));
    return { changes: replaces.length + updates.length > 0, replaces, deleteBeforeReplace: false };
  },

  async create(ctx, inputs) {
    const p = parseChecked(variableConfigInputsSchema, inputs, what(inputs));
    const label = what(inputs);
    const token = await assertCanManage(ctx, VARIABLES_COMPONENT, label);
    if (p.purgeOnDelete) assertCanPurge(token, label);
    const storage = ctx.client().storage;
    const intent = intentOf(p, p.configId !== undefined, inputs);
    const owner = ownerOf(inputs);
    const changeDescription = withMarker(p.changeDescription ?? DEFAULT_CHANGE_DESCRIPTION, owner);
    const { config, existed } = await createConfigOnce(storage, {
      branch: p.branchId,
      componentId: VARIABLES_COMPONENT,
      configId: p.configId,
      owner,
      adoptExisting: p.adoptExisting,
      label,
      body: { name: p.name, description: p.description, configuration: { variables: p.variables }, changeDescription },
    });
    const configId = config.id;
    const id = configResourceId(p.branchId, VARIABLES_COMPONENT, configId);
    let valuesRowId: string | undefined;
    try {
      if (existed) {
        // Found again after a crash or a lost answer (or adopted): converge it like an update.
        // Its values row is the one named as ours, else its only row.
        const row = config.rows.find((r) => r.name === VALUES_ROW_NAME) ?? (config.rows.length === 1 ? config.rows[0] : undefined);
        valuesRowId = await converge(storage, p, configId, config, row?.id, changeDescription);
      } else if (p.defaultValues !== undefined) {
        const where = { branch: p.branchId, componentId: VARIABLES_COMPONENT, configId };
        valuesRowId = await createRowOnce(storage, where, { name: VALUES_ROW_NAME, configuration: valuesRowConfiguration(p), changeDescription }, new Set());
      }
    } catch (err) {
      const left = await findLiveConfig(storage, p.branchId, VARIABLES_COMPONENT, configId).catch(() => undefined);
      if (left) throw new PartialFailure(`${label}: ${(err as Error).message}`, id, { ...outputs(intent, left, valuesRowId), __provider: inputs.__provider });
      throw err;
    }
    const final = normalizeConfig(await storage.getConfig(p.branchId, VARIABLES_COMPONENT, configId));
    return { id, outs: outputs(intent, final, valuesRowId) };
  },

  async read(ctx, id, props) {
    const parsedId = parseConfigResourceId(id);
    const branch = String(props.branchId ?? parsedId?.branch ?? "default");
    const configId = String(props.configId ?? parsedId?.configId ?? "");
    const c = await findLiveConfig(ctx.client().storage, branch, VARIABLES_COMPONENT, configId);
    if (!c) return { id: "" };
    // On import nothing is recorded: a single row is the values row.
    let valuesRowId = typeof props.valuesRowId === "string" ? props.valuesRowId : undefined;
    if (props.valuesRowId === undefined && !("variables" in props) && c.rows.length === 1) valuesRowId = c.rows[0].id;
    const mine = (props.defaultValues ?? undefined) as Record<string, string | number | boolean> | undefined;
    const intent: Intent = {
      branchId: branch,
      explicitConfigId: props.explicitConfigId === true,
      purgeOnDelete: props.purgeOnDelete === true,
      changeDescription: typeof props.changeDescription === "string" ? props.changeDescription : undefined,
      defaultValues: mine,
      name: resourceName(props),
    };
    const outs = outputs(intent, c, valuesRowId);
    const inputs: Props = {
      branchId: branch,
      name: outs.name,
      description: outs.description,
      variables: outs.variables,
      purgeOnDelete: intent.purgeOnDelete,
    };
    if (intent.explicitConfigId) inputs.configId = c.id;
    if (outs.defaultValues !== undefined) inputs.defaultValues = outs.defaultValues;
    if (intent.changeDescription !== undefined) inputs.changeDescription = intent.changeDescription;
    return { id: configResourceId(branch, VARIABLES_COMPONENT, c.id), props: outs, inputs };
  },

  async update(ctx, _id, olds, news) {
    const p = parseChecked(variableConfigInputsSchema, news, what(news));
    const label = what(news);
    const token = await assertCanManage(ctx, VARIABLES_COMPONENT, label);
    if (p.purgeOnDelete) assertCanPurge(token, label);
    const storage = ctx.client().storage;
    const configId = String(olds.configId);
    const intent = intentOf(p, p.configId !== undefined, news);
    const current = await findLiveConfig(storage, p.branchId, VARIABLES_COMPONENT, configId);
    if (!current) throw new Error(`${label}: configuration ${configId} no longer exists (deleted or in the trash): run \`pulumi refresh\` to recreate it`);
    const changeDescription = withMarker(p.changeDescription ?? DEFAULT_CHANGE_DESCRIPTION, ownerOf(news) ?? splitMarker(current.changeDescription).owner);
    const recordedRow = typeof olds.valuesRowId === "string" ? olds.valuesRowId : undefined;
    const valuesRowId = await converge(storage, p, configId, current, recordedRow, changeDescription);
    const final = normalizeConfig(await storage.getConfig(p.branchId, VARIABLES_COMPONENT, configId));
    return { outs: outputs(intent, final, valuesRowId) };
  },

  async delete(ctx, id, props) {
    const parsedId = parseConfigResourceId(id);
    const branch = String(props.branchId ?? parsedId?.branch ?? "default");
    const configId = String(props.configId ?? parsedId?.configId);
    const token = await assertCanManage(ctx, VARIABLES_COMPONENT, what(props), "delete configurations of");
    if (props.purgeOnDelete === true) assertCanPurge(token, what(props));
    await deleteConfiguration(ctx.client().storage, branch, VARIABLES_COMPONENT, configId, props.purgeOnDelete === true, withMarker("Deleted by Pulumi", ownerOf(props)));
  },
};
