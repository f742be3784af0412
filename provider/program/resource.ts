import * as pulumi from "@pulumi/pulumi";
import type { z } from "zod";
import type { AnyDefinition } from "../lifecycle/define";
import { quietStacks } from "./registration";
import { providerText } from "./reference";
import { branchDeclaration, type FactsInput } from "./declarations";

// What every resource class of a program is built from (the program process only): the types of
// its arguments and properties, derived from its kind's schema, and its registration.

/** Deep `pulumi.Input` of a plain input type, so nested values may be outputs of other resources. */
// Scalars are not distributed: `string | undefined` becomes Input<string | undefined>, which an
// Output<string | undefined> (such as VariableConfig.valuesRowId) satisfies.
export type DeepInput<T> = [T] extends [string | number | boolean | undefined | null]
  ? pulumi.Input<T>
  : T extends Array<infer U>
    ? pulumi.Input<Array<DeepInput<U>>>
    : T extends object
      ? pulumi.Input<{ [K in keyof T]: DeepInput<T[K]> }>
      : pulumi.Input<T>;

export type ArgsOf<T> = { [K in keyof T]: DeepInput<T[K]> };

// The keys of the class's properties. Extract<> keeps the mapped type below non-homomorphic, so an
// optional field becomes an Output that may hold undefined rather than an optional property.
type Keys<T> = Extract<keyof T, string>;

/** The properties of a resource class: every input and output as a `pulumi.Output`. */
export type OutputsOf<D extends AnyDefinition> = { readonly [K in Keys<z.output<D["visible"]>>]: pulumi.Output<z.output<D["visible"]>[K]> };

/**
 * What registers a resource of this definition: its type token (the dynamic resources' own,
 * `pulumi-nodejs:dynamic/keboola:<Kind>`, which the URNs of existing stacks carry), every output
 * registered (so it exists as a property), the secret ones encrypted, and two hidden inputs: the
 * provider reference that names the resource (reference.ts: what `pulumi.dynamic.Resource`
 * would store as the serialized provider) and what the program declares around it (`__program`,
 * which only the resource's check reads, and which state never keeps).
 */
export function registration(
  def: AnyDefinition,
  name: string,
  args: object,
  opts: pulumi.CustomResourceOptions | undefined,
  facts?: FactsInput,
): [string, string, pulumi.Inputs, pulumi.CustomResourceOptions] {
  const token = `pulumi-nodejs:dynamic/keboola:${def.type}`;
  // Whatever else the program says, a branchId naming a Branch of it says the branch is a
  // development one before it exists (for the kinds the service keeps out of such branches).
  const branch = branchDeclaration("branchId" in args ? args.branchId : undefined);
  const all = branch ? { ...facts, branch } : facts;
  const root = rootDirectory();
  const props: pulumi.Inputs = {
    ...Object.fromEntries(def.outputNames.map((o) => [o, undefined])),
    ...args,
    ...(all ? { __program: all } : {}),
    // URNs are known at preview, so the reference always is.
    __provider: pulumi.createUrn(name, token, opts?.parent).apply((urn) => providerText({ type: def.type, urn, root })),
  };
  const options: pulumi.CustomResourceOptions = {
    ...opts,
    additionalSecretOutputs: [...(opts?.additionalSecretOutputs ?? []), ...def.secretState],
  };
  return [token, name, props, options];
}

/** The program's directory, which relative paths in inputs are relative to (a Table's data). */
function rootDirectory(): string {
  try {
    return pulumi.runtime.getRootDirectory();
  } catch {
    return process.cwd();
  }
}

/**
 * The base of every resource class: a dynamic resource (served by the dynamic provider process
 * Pulumi starts, through dynamic/runtime.ts), registered as `registration()` describes, without the
 * SDK's per-promise debug stack traces (see registration.ts). It extends CustomResource rather
 * than `pulumi.dynamic.Resource`, which would serialize a provider object where the reference of
 * this resource goes; the type token and what the engine receives are the same.
 */
export abstract class KeboolaResource extends pulumi.CustomResource {
  protected constructor(def: AnyDefinition, name: string, args: object, opts: pulumi.CustomResourceOptions | undefined, facts?: FactsInput) {
    const stacks = quietStacks();
    try {
      super(...registration(def, name, args, opts, facts));
    } catch (err) {
      throw stacks.explain(err);
    } finally {
      stacks.restore();
    }
  }
}

type DependsOn = pulumi.CustomResourceOptions["dependsOn"];

/**
 * The program's `dependsOn` (a resource, a list, or a promise or output of either) with one more
 * resource. A promise or an output is extended when it resolves.
 */
export function withDependency(v: DependsOn, resource: pulumi.Resource): DependsOn {
  if (v === undefined) return [resource];
  if (Array.isArray(v)) return [...v, resource];
  if (pulumi.Resource.isInstance(v)) return [v, resource];
  const extended = (d: pulumi.Input<pulumi.Resource> | pulumi.Input<pulumi.Resource>[]): pulumi.Input<pulumi.Resource>[] => (Array.isArray(d) ? [...d, resource] : [d, resource]);
  if (v instanceof Promise) return v.then<pulumi.Input<pulumi.Resource>[]>(extended);
  return pulumi.output<pulumi.Resource | pulumi.Input<pulumi.Resource>[]>(v).apply(extended);
}
