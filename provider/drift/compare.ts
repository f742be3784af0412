import type { JsonValue } from "../../keboola/json";
import { diffValues, type Change } from "../review/diff";
import { compareResources } from "../review/changes";
import { KINDS } from "../kinds/registry";
import type { Live, Provenance } from "./live";
import type { ManagedResource } from "./stack";

// Drift of one resource: what the state recorded of Keboola after the last `up` (its outputs,
// `#` values as the ciphertexts written) against what the kind's read finds now, over the inputs
// the read gives back: the properties a program or manifest declares. Both sides hold
// ciphertexts, so a changed `#` value is seen as a changed ciphertext and never shown (review/diff
// reports it as a secret change).

export type DriftStatus = "same" | "changed" | "deleted" | "error";

export interface ResourceDrift {
  resource: ManagedResource;
  status: DriftStatus;
  changes: Change[];
  /** The compared properties as recorded and as found (found: absent for a deleted object). */
  recorded: Record<string, JsonValue>;
  live?: Record<string, JsonValue>;
  /** The read's full answer, for `pull` (its inputs) and for who changed it (live.ts provenanceOfChanged). */
  found?: Extract<Live, { state: "found" }>;
  /** Set for a changed object by provenanceOfChanged, where Keboola records it. */
  provenance?: Provenance;
  error?: string;
  /** Changes under a path the manifest entry's options.ignoreChanges names: listed apart, not drift (manifest-facts.ts). */
  ignored?: Change[];
  /** For changes of a value the manifest takes from `${name}`: the stack config key to change, by the change's path (manifest-facts.ts hintKey). */
  fromConfig?: Record<string, string>;
}

/**
 * Properties that are the program's intent, not Keboola's: a read carries them over from state, so
 * they never drift (and JobRun is a run, not an object that can be edited: it is not compared).
 */
const NOT_COMPARED = new Set(["changeDescription", "adoptExisting", "purgeOnDelete", "explicitConfigId", "warnings", "secretValues", "data", "dataContent"]);

const visible = (props: Record<string, unknown>, keys: readonly string[]): Record<string, JsonValue> =>
  Object.fromEntries(keys.filter((k) => props[k] !== undefined).map((k) => [k, props[k] as JsonValue]));

export function compareResource(resource: ManagedResource, live: Live | undefined): ResourceDrift {
  const keysOf = (props: Record<string, unknown>) => Object.keys(props).filter((k) => !k.startsWith("__") && !NOT_COMPARED.has(k));
  if (!live || live.state === "error") {
    return { resource, status: "error", changes: [], recorded: {}, error: live?.state === "error" ? live.message : "not read" };
  }
  if (live.state === "gone") {
    const keys = keysOf(resource.inputs).filter((k) => resource.outputs[k] !== undefined);
    return { resource, status: "deleted", changes: [], recorded: visible(resource.outputs, keys) };
  }
  if (resource.kind === "jobRun") return { resource, status: "same", changes: [], recorded: {}, found: live };
  const keys = [...new Set([...keysOf(live.inputs), ...keysOf(resource.inputs).filter((k) => resource.outputs[k] !== undefined)])].sort();
  const recorded = visible(resource.outputs, keys);
  const found = visible(live.inputs, keys);
  const { changes } = diffValues(recorded, found);
  return {
    resource,
    status: changes.length ? "changed" : "same",
    changes,
    recorded,
    live: found,
    found: live,
  };
}

/** Every resource of the snapshot compared, in the review's order (kind, then name): the same stack gives the same report. */
export function compareAll(resources: readonly ManagedResource[], live: ReadonlyMap<string, Live>): ResourceDrift[] {
  const key = (r: ManagedResource) => ({ kind: KINDS[r.kind].type, type: KINDS[r.kind].type, name: r.name, urn: r.urn });
  return [...resources].sort((a, b) => compareResources(key(a), key(b))).map((r) => compareResource(r, live.get(r.urn)));
}
