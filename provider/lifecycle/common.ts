import type { Props } from "./types";
import { isRecord } from "../../keboola/json";

// Pieces every kind uses: comparing values as JSON, naming the resource.

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
