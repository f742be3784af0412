// What a stack's state costs per resource, from `pulumi stack export`: the engine rewrites the
// whole state at every step, so its work grows with the steps times these bytes. Each resource's
// bytes are split into what makes them: the inputs and outputs the provider keeps, the serialized
// dynamic provider (`__provider`, in inputs and outputs), our bookkeeping inputs (`__*`), and what
// the engine records of the program (its source position and stack trace).

import { z } from "zod";

/** A resource of the export, its other fields (sourcePosition, stackTrace, ...) kept. */
const stateResourceSchema = z.looseObject({
  urn: z.string(),
  type: z.string(),
  inputs: z.record(z.string(), z.unknown()).optional(),
  outputs: z.record(z.string(), z.unknown()).optional(),
});
export type StateResource = z.infer<typeof stateResourceSchema>;

/** `pulumi stack export`, as far as its resources. */
export const stateExportSchema = z.looseObject({
  deployment: z.looseObject({ resources: z.array(stateResourceSchema).optional() }).optional(),
});

export interface ByteSplit {
  resources: number;
  total: number;
  provider: number;
  bookkeeping: number;
  inputs: number;
  outputs: number;
  trace: number;
  other: number;
}

const size = (v: unknown): number => (v === undefined ? 0 : JSON.stringify(v).length);

function split(r: StateResource): Omit<ByteSplit, "resources"> {
  const total = size(r);
  const fields = (o: Record<string, unknown> | undefined, pick: (k: string) => boolean) => Object.entries(o ?? {}).reduce((n, [k, v]) => (pick(k) ? n + size(k) + size(v) + 2 : n), 0);
  const provider = fields(r.inputs, (k) => k === "__provider") + fields(r.outputs, (k) => k === "__provider");
  const bookkeeping = fields(r.inputs, (k) => k.startsWith("__") && k !== "__provider") + fields(r.outputs, (k) => k.startsWith("__") && k !== "__provider");
  const inputs = fields(r.inputs, (k) => !k.startsWith("__"));
  const outputs = fields(r.outputs, (k) => !k.startsWith("__"));
  const trace = size(r.sourcePosition) + size(r.stackTrace);
  return { total, provider, bookkeeping, inputs, outputs, trace, other: total - provider - bookkeeping - inputs - outputs - trace };
}

/** Bytes per resource of our kinds (`pulumi-nodejs:dynamic/keboola:<Kind>`, or the plugin's `keboola:index:<Kind>`), per kind and for all of them. */
export function stateBytes(resources: readonly StateResource[]): { byKind: Record<string, ByteSplit>; all: ByteSplit } {
  const byKind: Record<string, ByteSplit> = {};
  const all: ByteSplit = { resources: 0, total: 0, provider: 0, bookkeeping: 0, inputs: 0, outputs: 0, trace: 0, other: 0 };
  for (const r of resources) {
    const m = /^(?:pulumi-nodejs:dynamic\/keboola|keboola:index):(\w+)$/.exec(r.type);
    if (!m) continue;
    const s = split(r);
    const k = (byKind[m[1]] ??= { resources: 0, total: 0, provider: 0, bookkeeping: 0, inputs: 0, outputs: 0, trace: 0, other: 0 });
    for (const target of [k, all]) {
      target.resources++;
      for (const f of ["total", "provider", "bookkeeping", "inputs", "outputs", "trace", "other"] as const) target[f] += s[f];
    }
  }
  return { byKind, all };
}

/** A table of bytes per resource, per kind and overall. */
export function formatStateBytes(report: ReturnType<typeof stateBytes>, stateTotal?: number, declared?: number): string {
  const per = (s: ByteSplit) =>
    [s.total, s.provider, s.bookkeeping, s.inputs, s.outputs, s.trace, s.other].map((b) => String(Math.round(b / Math.max(1, s.resources))).padStart(7)).join("");
  const lines = [`  ${"kind".padEnd(16)}${"n".padStart(5)}${["total", "provider", "__*", "inputs", "outputs", "trace", "other"].map((h) => h.padStart(7)).join("")}   (bytes per resource)`];
  for (const [kind, s] of Object.entries(report.byKind).sort()) lines.push(`  ${kind.padEnd(16)}${String(s.resources).padStart(5)}${per(s)}`);
  lines.push(`  ${"all".padEnd(16)}${String(report.all.resources).padStart(5)}${per(report.all)}`);
  if (stateTotal !== undefined && declared) lines.push(`  the whole state: ${stateTotal} B, ${(stateTotal / declared / 1024).toFixed(2)} KB per declared resource`);
  return lines.join("\n");
}
