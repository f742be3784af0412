import { z } from "zod";
import { isRecord } from "../../keboola/json";

// What a resource's check may use about the objects it references from this program (passed to
// the provider as the hidden input `__program`, written by program.ts): whether the referenced
// object is declared here (then it may not exist yet at preview), and what its declaration says.
// Values that are outputs may be unknown at preview; each check uses only what is known. The
// schema is the one record of their shape: the program process types what it sends by it, the
// provider process reads what it gets through it (a fact it cannot read is left out, as not known).

// Each field on its own: one that does not parse is dropped (`catch`), the others are kept.
const fact = <T extends z.ZodType>(schema: T) => schema.optional().catch(undefined);

/** A ComponentConfig (or Flow) of this program, as a JobRun's or Schedule's check sees it. */
const programConfigurationSchema = z.object({
  /** Its class (default ComponentConfig; a Schedule's target may be a Flow). */
  type: z.enum(["ComponentConfig", "Flow"]).optional(),
  resource: z.string(),
  isDisabled: z.unknown(),
  /** Whether it binds variables (undefined: its binding is an output, not known here). */
  bound: z.boolean().optional(),
  /** The configId its binding names. */
  variablesId: z.unknown().optional(),
  /** The bound VariableConfig, when it is one of this program. */
  variables: z
    .object({
      resource: z.string(),
      declared: z.unknown(),
      /** The names its defaultValues give (absent: it has no default values row). */
      defaultValueNames: z.unknown().optional(),
      /** Its values row (unknown until it exists). */
      valuesRowId: z.unknown().optional(),
      /** Which default values row the binding names: that VariableConfig's ("declared"), none, or another. */
      defaultRow: z.enum(["declared", "none", "other"]),
    })
    .optional(),
});

export const programFactsSchema = z.object({
  /** Sink: the type of its Source. */
  sourceType: fact(z.string()),
  /** Sink: its Source; settings: their source (SourceSettings) or sink (SinkSettings); JobRun: its configuration; Table: its bucket. */
  declared: fact(z.boolean()),
  /** `#` values the program gives as literal, non-secret text (plainSecretPaths). */
  plainSecrets: fact(z.array(z.string())),
  /** Source: the ids of the other Sources of its branch declared before it; Sink: those of the other Sinks of its source. */
  declaredBefore: fact(z.array(z.string())),
  /** Sink: the first other Sink of this program that writes the same table, with its columns. */
  sharedTable: fact(z.object({ sink: z.string(), columns: z.unknown() })),
  /** Sink: the Table of this program it writes, with its id (when the program says it), declared columns and primary key. */
  declaredTable: fact(z.object({ resource: z.string(), tableId: z.string().optional(), columns: z.unknown(), primaryKey: z.unknown() })),
  /** Table: the id its Bucket of this program will have (when its stage and name are literal). */
  bucketId: fact(z.string()),
  /** Sink: the id its Source of this program will have (when given or derived from a literal name). */
  sourceId: fact(z.string()),
  /** ComponentConfig: the VariableConfig of this program its binding names, with its declared variables. */
  boundVariables: fact(z.object({ resource: z.string(), declared: z.unknown() })),
  /** JobRun, Schedule: the ComponentConfig (or Flow) of this program it runs. */
  configuration: fact(programConfigurationSchema),
  /** Flow: per phase, per task, whether the task's configuration is a ComponentConfig of this program. */
  declaredTasks: fact(z.array(z.array(z.boolean()))),
  /** Any kind with a branchId: the Branch of this program it names (a development branch, perhaps not created yet). */
  branch: fact(z.object({ resource: z.string(), name: z.string().optional() })),
  /** Schedule: the development branch stack config `keboola:branch` puts this program in. */
  stackBranch: fact(z.string()),
});

export type ProgramFacts = z.output<typeof programFactsSchema>;
export type ProgramConfiguration = z.output<typeof programConfigurationSchema>;

/** The facts a call's inputs (or state) carry: what of `__program` this version can read. */
export function programFacts(props: Record<string, unknown>): ProgramFacts {
  const f = props.__program;
  return isRecord(f) ? programFactsSchema.parse(f) : {};
}

/** The resource name of the stack's own Branch (stack config keboola:branch; kinds/branch.ts, stackBranch). */
export const STACK_BRANCH_RESOURCE = "keboola-branch";
