import { z } from "zod";
import { branchSchema, storageIdSchema } from "../../validation/ids";
import type { ConfigRow, Configuration, StorageApi } from "../../api/storage";
import { isNotFound, asError } from "../../api/errors";
import { checkWith, isUnknown, knownFields, whenKnown } from "../../validation/check";
import { declarationsIn, stringValue, valueIssues, valuesIn, variableDeclarationsSchema, variableValuesSchema, type VariableDeclaration } from "../../validation/variables";
import { branchFailure, configSlotFailure, firstFailure, isNew } from "../../lifecycle/preflight";
import { same } from "../../lifecycle/common";
import { defineResource, replaces, untracked, type CheckedOf, type InputsOf, type StateOf } from "../../lifecycle/define";
import type { CheckResponse, Handler } from "../../lifecycle/call";
import { PartialFailure } from "../../lifecycle/types";
import {
  configResourceId,
  addressedConfig,
  assertCanManage,
  beginConfigUpdate,
  assertCanPurge,
  findLiveConfig,
  normalizeConfig,
  deleteConfigResource,
  createConfigOnce,
  createRowOnce,
  adoptExistingSchema,
  takesOverBranchCopy,
  ADOPT_NEEDS_ID,
  DEFAULT_CHANGE_DESCRIPTION,
  VALUES_ROW_NAME,
  VARIABLES_COMPONENT,
} from "../../lifecycle/configurations";
import { withMarker } from "../../lifecycle/ownership";

// Configuration variables: a `keboola.variables` configuration declaring `{name, type}` pairs,
// with the default values in one row of it (`{"values": [{name, value}]}`, every value a
// string). A ComponentConfig binds to it (its `variables` input) and jobs substitute the values
// into `{{name}}` placeholders. Changing a default value updates that row in place; the
// configuration itself is written only when its name, description or declarations change.

export const variableConfig = defineResource({
  type: "VariableConfig",
  description: "Configuration variables (keboola.variables): declarations and a row of default values.",
  inputs: {
    branchId: replaces(branchSchema),
    configId: replaces(
      storageIdSchema("must not be empty: omit it to let Keboola choose the id")
        .optional()
        .describe("Configuration id; chosen by Keboola when omitted. Changing it replaces the configuration."),
      { whenSet: true },
    ),
    name: z.string({ error: "required: the configuration name" }).min(1, "must not be empty").describe("Configuration name."),
    description: z.string().default("").describe("Configuration description."),
    variables: variableDeclarationsSchema.describe('Declared variables: [{name, type: "string"|"int"}].'),
    defaultValues: variableValuesSchema
      .optional()
      .describe("Default values, {name: value}, stored as a values row of the configuration; jobs use them when given no values. Omit to have no values row."),
    changeDescription: untracked(z.string().optional().describe(`Version description written with each change (default "${DEFAULT_CHANGE_DESCRIPTION}").`)),
    purgeOnDelete: z.boolean().default(false).describe("On delete, also purge the configuration from the trash (default: it stays in the trash and can be restored)."),
    adoptExisting: untracked(adoptExistingSchema),
  },
  refine: (v, ctx) => {
    if (v.adoptExisting === true && v.configId === undefined) ctx.addIssue({ code: "custom", path: ["adoptExisting"], message: ADOPT_NEEDS_ID });
    // The known values against the declarations, when those are known (a value may be an output).
    const declared = whenKnown(v.variables);
    // Stryker disable next-line ConditionalExpression: equivalent for `!isUnknown(...)` as true: checkWith drops a problem at a place not known yet (its other variants are disabled with it)
    if (declared && !isUnknown(v.defaultValues)) {
      // Stryker disable next-line MethodExpression,ConditionalExpression: equivalent without the filter, as above: a problem at an unknown value is dropped
      const values = Object.fromEntries(Object.entries(v.defaultValues ?? {}).filter(([, x]) => !isUnknown(x)));
      for (const issue of valueIssues(values, declared)) ctx.addIssue({ code: "custom", path: ["defaultValues", issue.name], message: issue.message });
    }
  },
  outputs: {
    configId: z.string().describe("Id of the keboola.variables configuration."),
    valuesRowId: z.string().optional().describe("Id of the row holding the default values (absent without defaultValues)."),
    version: z.number().int().describe("Configuration version."),
  },
  internal: {
    /** Whether configId was declared (else Keboola chose it, and a later declared configId is not a new one). */
    explicitConfigId: z.boolean(),
  },
});

/** Kept for the manifest's schema: the inputs of a VariableConfig. */
export const variableConfigInputsSchema = variableConfig.inputs;
export type VariableConfigInputs = InputsOf<typeof variableConfig>;
type Parsed = CheckedOf<typeof variableConfig>;
type State = StateOf<typeof variableConfig>;


// ---------------------------------------------------------------------------------------------
// VariableConfig handler

const what = (name: string) => `VariableConfig "${name}"`;

function valuesRowConfiguration(p: Pick<Parsed, "variables" | "defaultValues">): Record<string, unknown> {
  const values = p.defaultValues ?? {};
  // Declaration order: stable, so a reordered map literal is not a change.
  return { values: p.variables.filter((v) => v.name in values).map((v) => ({ name: v.name, value: stringValue(values[v.name]) })) };
}

/** The values row's `[{name, value}]` as `{name: value}`. */
const valuesFromRow = (row: ConfigRow): Record<string, string> => valuesIn(row.configuration.values);

const declarationsFrom = (c: Configuration): VariableDeclaration[] => declarationsIn(c.configuration.variables);

interface Intent {
  branchId: string;
  explicitConfigId: boolean;
  purgeOnDelete: boolean;
  changeDescription?: string;
  adoptExisting: boolean;
}

function stateOf(intent: Intent, c: Configuration, valuesRowId: string | undefined): State {
  const row = valuesRowId ? c.rows.find((r) => r.id === valuesRowId) : undefined;
  return {
    branchId: intent.branchId,
    configId: c.id,
    name: c.name,
    description: c.description,
    variables: declarationsFrom(c),
    defaultValues: row ? valuesFromRow(row) : undefined,
    valuesRowId: row?.id,
    version: c.version,
    purgeOnDelete: intent.purgeOnDelete,
    explicitConfigId: intent.explicitConfigId,
    adoptExisting: intent.adoptExisting,
    changeDescription: intent.changeDescription, // left out of the state when undefined (runtime.ts withIdentity)
  };
}

function intentOf(p: Parsed): Intent {
  return {
    branchId: p.branchId,
    explicitConfigId: p.configId !== undefined,
    purgeOnDelete: p.purgeOnDelete,
    changeDescription: p.changeDescription,
    adoptExisting: p.adoptExisting,
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

export const handler: Handler<typeof variableConfig> = {
  async check(req): Promise<CheckResponse> {
    const { olds, news } = req;
    const { value, failures } = checkWith(variableConfig, news);
    if (!value) return { inputs: news, failures };
    const slot = knownFields(value, ["branchId", "configId", "adoptExisting"]);
    if (failures.length === 0 && !isUnknown(value.branchId)) {
      const found = await firstFailure(
        () => branchFailure(req, value.branchId),
        async () => (slot && isNew(olds, { branchId: slot.branchId, configId: slot.configId }) ? configSlotFailure(req, { ...slot, componentId: VARIABLES_COMPONENT, adoptExisting: takesOverBranchCopy(req.call.facts, slot.adoptExisting) }, req.call.owner) : undefined),
      );
      if (found) failures.push(found);
    }
    return { inputs: { ...news, ...value }, failures };
  },

  async create(req) {
    const { inputs: p } = req;
    const label = what(req.call.name);
    const token = await assertCanManage(req, VARIABLES_COMPONENT, label);
    if (p.purgeOnDelete) assertCanPurge(token, label);
    const storage = req.client().storage;
    const intent = intentOf(p);
    const owner = req.call.owner;
    const changeDescription = withMarker(p.changeDescription ?? DEFAULT_CHANGE_DESCRIPTION, owner);
    const { config, existed } = await createConfigOnce(storage, {
      branch: p.branchId,
      componentId: VARIABLES_COMPONENT,
      configId: p.configId,
      owner,
      adoptExisting: takesOverBranchCopy(req.call.facts, p.adoptExisting),
      inBranchOfProgram: takesOverBranchCopy(req.call.facts, false),
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
      if (left) throw new PartialFailure(`${label}: ${asError(err).message}`, id, stateOf(intent, left, valuesRowId));
      throw err;
    }
    const final = normalizeConfig(await storage.getConfig(p.branchId, VARIABLES_COMPONENT, configId));
    return { id, outs: stateOf(intent, final, valuesRowId) };
  },

  async read(req) {
    const { id, recorded } = req;
    const { branch, configId = "" } = addressedConfig(id, recorded);
    const c = await findLiveConfig(req.client().storage, branch, VARIABLES_COMPONENT, configId);
    if (!c) return { id: "" };
    // On import nothing is recorded: a single row is the values row.
    let valuesRowId = recorded.valuesRowId;
    if (valuesRowId === undefined && recorded.variables === undefined && c.rows.length === 1) valuesRowId = c.rows[0].id;
    const intent: Intent = {
      branchId: branch,
      explicitConfigId: recorded.explicitConfigId === true,
      purgeOnDelete: recorded.purgeOnDelete === true,
      changeDescription: recorded.changeDescription,
      adoptExisting: recorded.adoptExisting === true,
    };
    const state = stateOf(intent, c, valuesRowId);
    const { configId: _c, valuesRowId: _v, version: _n, explicitConfigId: _e, ...inputs } = state;
    return { id: configResourceId(branch, VARIABLES_COMPONENT, c.id), props: state, inputs: intent.explicitConfigId ? { ...inputs, configId: c.id } : inputs };
  },

  async update(req) {
    const { olds, news: p } = req;
    const configId = olds.configId ?? p.configId ?? "";
    const { storage, current, changeDescription } = await beginConfigUpdate(req, what(req.call.name), { branch: p.branchId, componentId: VARIABLES_COMPONENT, configId }, p, req.call.owner);
    const valuesRowId = await converge(storage, p, configId, current, olds.valuesRowId, changeDescription);
    const final = normalizeConfig(await storage.getConfig(p.branchId, VARIABLES_COMPONENT, configId));
    return { outs: stateOf(intentOf(p), final, valuesRowId) };
  },

  async delete(req) {
    const { id, recorded } = req;
    const { branch, configId = id } = addressedConfig(id, recorded);
    await deleteConfigResource(req, what(req.call.name), { branch, componentId: VARIABLES_COMPONENT, configId }, recorded.purgeOnDelete === true, req.call.owner);
  },
};

export const definition = variableConfig;
