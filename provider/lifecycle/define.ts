import { z } from "zod";
import type { ProgramFacts } from "./facts";
import type { DiffResponse, Props } from "./types";
import { same } from "./common";
import { partlyKnown, unknownsAsOld, withExpected, type PartlyKnown, type RuleContext } from "../validation/check";

// One zod schema per resource says all there is about its data: the inputs a program passes,
// what the provider computes (and which of it is secret), and what state keeps for the provider
// itself. The rest is derived from it here: the properties of the resource class, the outputs
// Pulumi registers, `additionalSecretOutputs`, the resource's schema.json entry, the typed
// arguments of its handler and the parsing of state written by this or an older version.

// Lifecycle rules are markers on the schema's fields (as Terraform's plan modifiers and
// pulumi-go-provider's field tags are), read here once:
// - secret(): state keeps the field encrypted;
// - replaces(): a new value replaces the object (`{ whenSet: true }`: only a value that is set;
//   omitting it keeps the object, as an id chosen by the service);
// - untracked(): the field steers an operation (adoptExisting, changeDescription) and never makes a
//   diff of its own.
// Every other input updates the object in place when its value changes. A field's canonical form is
// its schema's transform, so inputs after check and state read back compare as they are.

const secretFields = new WeakSet<object>();
const replacingFields = new WeakMap<object, { whenSet: boolean }>();
const untrackedFields = new WeakSet<object>();

/** Marks a field that state keeps encrypted (a credential such as an ingestion URL, or the plain text of `#` values). */
export function secret<T extends z.ZodType>(field: T): T {
  secretFields.add(field);
  return field;
}

/** Marks an input whose change replaces the object (RequiresReplace); `whenSet`: only when a value is given. */
export function replaces<T extends z.ZodType>(field: T, options: { whenSet?: boolean } = {}): T {
  // A copy: a schema shared by several resources (branchSchema) is marked for this one alone.
  const marked = field.clone();
  replacingFields.set(marked, { whenSet: options.whenSet ?? false });
  return marked;
}

/**
 * How the service keeps a field's value unique: among the objects that share the `within` fields
 * (a bucket's display name within its branch and stage). When the field is omitted the service
 * uses the value of `orElse` (a bucket's display name defaults to its name).
 */
export interface UniqueRule {
  within: readonly string[];
  orElse?: string;
  /** How a message names the value: "display name". */
  what: string;
}

const uniqueFields = new WeakMap<object, UniqueRule>();

/**
 * Marks an input whose value the service keeps unique (see UniqueRule). A replacement that keeps
 * it, and the fields it is unique within, cannot be created beside the object it replaces: the
 * old object is deleted first (deleteBeforeReplace), which the kind's check guards where deleting
 * first would lose what the program does not declare.
 */
export function unique<T extends z.ZodType>(field: T, rule: UniqueRule): T {
  const marked = field.clone();
  uniqueFields.set(marked, rule);
  return marked;
}

/** Marks an input that steers an operation and is never a change of the object by itself. */
export function untracked<T extends z.ZodType>(field: T): T {
  const marked = field.clone();
  untrackedFields.add(marked);
  return marked;
}

type Shape = z.ZodRawShape;

export interface ResourceSpec<I extends Shape, O extends Shape, K extends Shape> {
  /** `Source` registers as `pulumi-nodejs:dynamic/keboola:Source`. */
  type: string;
  description: string;
  /** What a program passes. */
  inputs: I;
  /**
   * Rules across input fields, each reported at its own path. At preview a field may still be
   * unknown (PartlyKnown): a rule that needs it skips, the others run (validation/check.ts).
   */
  refine?: (value: PartlyKnown<z.output<z.ZodObject<I>>>, ctx: RuleContext) => void;
  /** Computed by the provider and readable on the resource; an input may be repeated here with its settled type. */
  outputs: O;
  /** Bookkeeping state keeps for the provider alone: neither on the class nor in schema.json. */
  internal?: K;
  /** Rewrites state written by an older version into today's field names before it is parsed. */
  upgrade?: (old: Props) => Props;
  /**
   * What the program says about inputs that reference other resources of it (program.ts): the id
   * each will have. Check and diff use it while the engine still passes the input as unknown.
   */
  expected?: (facts: ProgramFacts) => Partial<Record<keyof I, string>>;
}

// `{}` as a shape type: no extra fields (Record<string, never> would forbid extending).
type None = {};

export function defineResource<I extends Shape, O extends Shape, K extends Shape = None>(spec: ResourceSpec<I, O, K>) {
  const base = z.object(spec.inputs).strict();
  const refine = spec.refine;
  // A fully known value is a PartlyKnown one with no unknown in it.
  const inputs = refine ? base.superRefine((v, ctx) => refine(partlyKnown(v), ctx)) : base;
  const outputs = z.object(spec.outputs);
  const visible = z.object(spec.inputs).extend(spec.outputs);
  // An omitted `internal` is K's default, None: TypeScript cannot tie the absent property to the
  // type parameter's default, so the empty shape is asserted to be K.
  const state = visible.extend(spec.internal ?? ({} as K));
  const names = Object.keys(visible.shape);
  const inputFields: Array<[string, object]> = Object.entries(spec.inputs);
  const lifecycle: Lifecycle = {
    fields: Object.fromEntries(Object.entries(spec.inputs)),
    replace: inputFields.flatMap(([n, f]) => (replacingFields.get(f)?.whenSet === false ? [n] : [])),
    replaceWhenSet: inputFields.flatMap(([n, f]) => (replacingFields.get(f)?.whenSet ? [n] : [])),
    update: inputFields.flatMap(([n, f]) => (replacingFields.has(f) || untrackedFields.has(f) ? [] : [n])),
    unique: inputFields.flatMap(([n, f]) => {
      const rule = uniqueFields.get(f);
      return rule ? [{ field: n, ...rule }] : [];
    }),
  };
  const definition = {
    lifecycle,
    refine,
    /** The ids the program says its references will have (spec.expected), for check and diff. */
    expectedOf: (facts: ProgramFacts): Record<string, string | undefined> => (spec.expected ? spec.expected(facts) : {}),
    type: spec.type,
    description: spec.description,
    inputs,
    outputs,
    /** What the resource class shows: inputs and outputs. */
    visible,
    state,
    outputNames: names,
    secretOutputs: Object.entries(visible.shape).flatMap(([n, f]: [string, object]) => (secretFields.has(f) ? [n] : [])),
    /** Everything state keeps encrypted: the secret outputs and secret bookkeeping. */
    secretState: Object.entries(state.shape).flatMap(([n, f]: [string, object]) => (secretFields.has(f) ? [n] : [])),
    /**
     * State as this version reads it. Each field is parsed on its own: one a version cannot read
     * (or that is missing, as after `pulumi import` or a half-finished create) is left out, and the
     * handler treats it as not recorded instead of failing a refresh or a destroy.
     */
    parseState(raw: Props): Partial<z.output<typeof state>> {
      const old = spec.upgrade ? spec.upgrade(raw) : raw;
      const out: Props = {};
      const fields: Array<[string, z.core.$ZodType]> = Object.entries(state.shape);
      for (const [key, field] of fields) {
        if (old[key] === undefined || old[key] === null) continue;
        const parsed = z.safeParse(field, old[key]);
        if (parsed.success) out[key] = parsed.data;
      }
      // Each key is a field of the shape holding that field's parsed output (or is left out): a
      // Partial of the state's output by construction, which TypeScript cannot follow through
      // Object.entries of the shape.
      return out as Partial<z.output<typeof state>>;
    },
  };
  DEFINED.set(spec.type, definition);
  return definition;
}

// Every definition made, by type: the catalog (schema.json) reads the kinds table's through it.
const DEFINED = new Map<string, AnyDefinition>();

/** The definition of a kind's type, once its resource module is loaded. */
export function definitionOf(type: string): AnyDefinition | undefined {
  return DEFINED.get(type);
}

/** Which inputs replace the object, and which update it in place (the rest are untracked). */
export interface Lifecycle {
  /** Each input's schema, whose output is the field's canonical form. */
  fields: Readonly<Record<string, z.core.$ZodType>>;
  replace: readonly string[];
  /** Replace only when a value is given and differs (an omitted id keeps the object). */
  replaceWhenSet: readonly string[];
  update: readonly string[];
  /** Inputs whose value the service keeps unique (unique()): a replacement keeping one deletes the old object first. */
  unique: ReadonlyArray<UniqueRule & { field: string }>;
}

/**
 * The diff the markers say: a changed `replaces()` field replaces, any other changed tracked input
 * updates in place. Values compare as JSON regardless of key order; state was read through the
 * schema (parseState), so both sides are in canonical form.
 */
export function markerDiff(def: Pick<AnyDefinition, "lifecycle" | "expectedOf">, olds: Props, news: Props, facts: ProgramFacts = {}): DiffResponse {
  const { fields, replace, replaceWhenSet, update, unique: uniques } = def.lifecycle;
  // A value unknown at preview is what the program says it will be (a reference to a resource of
  // the same program), else it counts as unchanged: a dynamic provider cannot preview an update,
  // so while a resource is updated its outputs are unknown to its dependents though they rarely
  // change; when one does (a replacement), `up` diffs again with the real value.
  const given = withExpected(news, def.expectedOf(facts));
  // The new value in canonical form, as check gives it.
  const canonical = (f: string): unknown => {
    const value = unknownsAsOld(olds[f], given[f]);
    const parsed = fields[f] ? z.safeParse(fields[f], value) : undefined;
    return parsed?.success ? parsed.data : value;
  };
  const differs = (f: string) => !same(olds[f], canonical(f));
  const replaces = [...replace.filter(differs), ...replaceWhenSet.filter((f) => given[f] !== undefined && given[f] !== "" && differs(f))];
  const updates = update.filter(differs);
  return { changes: replaces.length + updates.length > 0, replaces, deleteBeforeReplace: replaces.length > 0 && keepsUnique(uniques, olds, canonical) };
}

/**
 * Whether a replacement would keep a value the service keeps unique (see unique()): every field
 * it is unique within unchanged, and the value (or the value the service takes when it is omitted)
 * the same. The replacement could not be created beside the old object.
 */
export function keepsUnique(uniques: Lifecycle["unique"], olds: Props, canonical: (f: string) => unknown): boolean {
  const valueOf = (get: (f: string) => unknown, u: UniqueRule & { field: string }) => get(u.field) ?? (u.orElse ? get(u.orElse) : undefined);
  return uniques.some((u) => u.within.every((w) => same(olds[w], canonical(w))) && same(valueOf((f) => olds[f], u), valueOf(canonical, u)));
}

export interface AnyDefinition {
  lifecycle: Lifecycle;
  expectedOf(facts: ProgramFacts): Record<string, string | undefined>;
  type: string;
  description: string;
  inputs: z.ZodType;
  outputs: z.ZodObject;
  visible: z.ZodObject;
  state: z.ZodObject;
  outputNames: readonly string[];
  secretOutputs: readonly string[];
  secretState: readonly string[];
  parseState(raw: Props): Props;
}

/** Inputs as a program writes them. */
export type InputsOf<D extends AnyDefinition> = z.input<D["inputs"]>;
/** Inputs after `check`: parsed, defaults applied. */
export type CheckedOf<D extends AnyDefinition> = z.output<D["inputs"]>;
/** Everything state holds for the resource. */
export type StateOf<D extends AnyDefinition> = z.output<D["state"]>;
/** State as recorded: any field may be missing (import, a half-finished create, an older version). */
export type RecordedOf<D extends AnyDefinition> = Partial<StateOf<D>>;
