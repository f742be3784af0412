import type { JsonValue } from "../../keboola/json";
import type { PreviewDigest, PreviewState, PreviewStep } from "./preview";
import { kindRank } from "./kinds";

// The preview's steps as one entry per resource: its kind and name, what happens to it, and its
// old and new state with the hidden bookkeeping inputs (`__owner`, `__program`, ... : anything
// starting with `__`) left out. A replacement shown as several steps (`--show-replacement-steps`:
// `create-replacement`, `replace`, `delete-replaced`) is one entry.

export type Op = "create" | "update" | "replace" | "delete" | "same" | "read" | "import" | "other";

const OPS: Record<string, Op> = {
  same: "same",
  create: "create",
  update: "update",
  delete: "delete",
  replace: "replace",
  "create-replacement": "replace",
  "delete-replaced": "replace",
  read: "read",
  "read-replacement": "read",
  import: "import",
  "import-replacement": "import",
};

/** What the review reads of one side of a resource. */
export interface StateView {
  id?: string;
  inputs: Record<string, JsonValue>;
  outputs: Record<string, JsonValue>;
  /** The resources each input depends on (Pulumi's propertyDependencies, bookkeeping inputs left out). */
  inputDependencies: Record<string, string[]>;
  /** Every resource it depends on (Pulumi's dependencies). */
  dependencies: string[];
  deletedWith?: string;
}

export interface ResourceChange {
  urn: string;
  type: string;
  /** `Sink` for `pulumi-nodejs:dynamic/keboola:Sink`; undefined for a resource of another package. */
  kind?: string;
  name: string;
  op: Op;
  /** Pulumi's op names of its steps, e.g. `discard` for an op the review does not tell apart. */
  pulumiOps: string[];
  old?: StateView;
  new?: StateView;
  replaceReasons: string[];
}

export interface Review {
  /** Our resources and others' (the stack and providers left out), in kind order, then by name. */
  resources: ResourceChange[];
  /** Unchanged resources the preview counts but does not list (run without `--show-sames`). */
  unlisted: number;
  diagnostics: Array<{ urn?: string; severity: string; message: string }>;
  stack?: string;
}

const KEBOOLA_TYPE = /^pulumi-nodejs:dynamic\/keboola:([A-Za-z]+)$/;

/** `urn:pulumi:<stack>::<project>::<type>::<name>` -> its parts (the type may name parents with `$`). */
export function parseUrn(urn: string): { stack: string; type: string; name: string } {
  const parts = urn.split("::");
  const stack = parts[0]?.replace(/^urn:pulumi:/, "") ?? "";
  const name = parts.length >= 4 ? parts.slice(3).join("::") : urn;
  const qualified = parts[2] ?? "";
  return { stack, type: qualified.slice(qualified.lastIndexOf("$") + 1), name };
}

export function kindOfType(type: string): string | undefined {
  return KEBOOLA_TYPE.exec(type)?.[1];
}

/** A state side without the hidden bookkeeping inputs (`__owner`, `__program`, ...). */
export const visible = (record: Record<string, JsonValue> | undefined) => Object.fromEntries(Object.entries(record ?? {}).filter(([k]) => !k.startsWith("__")));

function view(state: PreviewState | undefined): StateView | undefined {
  if (!state) return undefined;
  return {
    ...(state.id ? { id: state.id } : {}),
    inputs: visible(state.inputs),
    outputs: visible(state.outputs),
    inputDependencies: Object.fromEntries(Object.entries(state.propertyDependencies ?? {}).filter(([k, v]) => !k.startsWith("__") && v.length > 0)),
    dependencies: state.dependencies ?? [],
    ...(state.deletedWith ? { deletedWith: state.deletedWith } : {}),
  };
}

const ignored = (type: string) => type === "pulumi:pulumi:Stack" || type.startsWith("pulumi:providers:");

export function reviewOf(digest: PreviewDigest): Review {
  const byUrn = new Map<string, PreviewStep[]>();
  for (const step of digest.steps ?? []) byUrn.set(step.urn, [...(byUrn.get(step.urn) ?? []), step]);
  let stack: string | undefined;
  let listedSames = 0;
  const resources: ResourceChange[] = [];
  for (const [urn, steps] of byUrn) {
    const { stack: s, type, name } = parseUrn(urn);
    stack ??= s || undefined;
    if (steps.some((st) => st.op === "same")) listedSames++;
    if (ignored(type)) continue;
    const ops = steps.map((st) => OPS[st.op] ?? "other");
    const op: Op = ops.includes("replace") ? "replace" : ops[0];
    // The replace step carries both states; the others one each.
    const main = steps.find((st) => st.op === "replace") ?? steps[0];
    const old = main.oldState ?? steps.find((st) => st.oldState)?.oldState;
    const next = main.newState ?? steps.find((st) => st.newState)?.newState;
    const kind = kindOfType(type);
    resources.push({
      urn,
      type,
      ...(kind ? { kind } : {}),
      name,
      op,
      pulumiOps: [...new Set(steps.map((st) => st.op))],
      ...(op !== "create" && old ? { old: view(old) } : {}),
      ...(op !== "delete" && next ? { new: view(next) } : {}),
      replaceReasons: [...new Set(steps.flatMap((st) => st.replaceReasons ?? []))].filter((k) => !k.startsWith("__")).sort(),
    });
  }
  resources.sort(compareResources);
  const counted = digest.changeSummary?.same ?? 0;
  return {
    resources,
    unlisted: Math.max(0, counted - listedSames),
    diagnostics: (digest.diagnostics ?? []).map((d) => ({ ...(d.urn ? { urn: d.urn } : {}), severity: d.severity ?? "info", message: d.message ?? "" })),
    ...(stack ? { stack } : {}),
  };
}

/** Kinds in the review's order, other packages' resources after ours; then by name, then URN. */
export function compareResources(a: { kind?: string; type: string; name: string; urn: string }, b: { kind?: string; type: string; name: string; urn: string }): number {
  return kindRank(a.kind) - kindRank(b.kind) || byCodePoint(a.type, b.type) || byCodePoint(a.name, b.name) || byCodePoint(a.urn, b.urn);
}

/** String order by code point: the same on every machine (no locale). */
export function byCodePoint(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
