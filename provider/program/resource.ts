import * as pulumi from "@pulumi/pulumi";
import type * as dynamic from "@pulumi/pulumi/dynamic";
import type { z } from "zod";
import type { AnyDefinition } from "../lifecycle/define";
import { kindOfType } from "../kinds/registry";
import { quietStacks } from "./registration";
import { kindProvider } from "./kind-provider";
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
 * The arguments of `pulumi.dynamic.Resource` for a resource of this definition: every output
 * registered (so it exists as a property), the secret ones encrypted, plus the hidden inputs
 * with its owner marker (its URN, which also names it) and what the program declares around it.
 */
export function registration(
  /** The kind's provider object (lifecycle/kind-provider.ts): one per kind, so Pulumi serializes it once. */
  provider: dynamic.ResourceProvider,
  def: AnyDefinition,
  name: string,
  args: object,
  opts: pulumi.CustomResourceOptions | undefined,
  facts?: FactsInput,
): [dynamic.ResourceProvider, string, pulumi.Inputs, pulumi.CustomResourceOptions, string, string] {
  const token = `pulumi-nodejs:dynamic/keboola:${def.type}`;
  // Whatever else the program says, a branchId naming a Branch of it says the branch is a
  // development one before it exists (for the kinds the service keeps out of such branches).
  const branch = branchDeclaration("branchId" in args ? args.branchId : undefined);
  const all = branch ? { ...facts, branch } : facts;
  const props: pulumi.Inputs = {
    ...Object.fromEntries(def.outputNames.map((o) => [o, undefined])),
    ...args,
    ...(all ? { __program: all } : {}),
    // The owner marker written onto every object this resource creates (see ownership.ts).
    __owner: pulumi.createUrn(name, token, opts?.parent),
  };
  const options: pulumi.CustomResourceOptions = {
    ...opts,
    additionalSecretOutputs: [...(opts?.additionalSecretOutputs ?? []), ...def.secretState],
  };
  return [provider, name, props, options, "keboola", def.type];
}

/**
 * The base of every resource class: registers the resource as `registration()` describes, without
 * the SDK's per-promise debug stack traces (see provider/registration.ts).
 */
export abstract class KeboolaResource extends pulumi.dynamic.Resource {
  protected constructor(def: AnyDefinition, name: string, args: object, opts: pulumi.CustomResourceOptions | undefined, facts?: FactsInput) {
    const stacks = quietStacks();
    try {
      super(...registration(kindProvider(kindOfType(def.type)), def, name, args, opts, facts));
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
