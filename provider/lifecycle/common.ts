import * as pulumi from "@pulumi/pulumi";
import type { Props } from "./types";
import { isRecord } from "../../keboola/json";

// Pieces every resource file uses: the argument types of the classes, comparing and diffing.

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

/** Canonical JSON for comparing nested values regardless of key order. */
export function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(",")}]`;
  if (isRecord(v)) {
    return `{${Object.keys(v)
      .filter((k) => v[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson(v[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(v ?? null);
}

export function same(a: unknown, b: unknown): boolean {
  return stableJson(a) === stableJson(b);
}

export function resourceName(props: Props): string {
  if (typeof props.__resourceName === "string") return props.__resourceName;
  // State written before names were recorded: the owner URN ends with the name.
  if (typeof props.__owner === "string") return props.__owner.split("::").pop() ?? props.__owner;
  return "(unnamed)";
}
