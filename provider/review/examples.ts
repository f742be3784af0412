import { isOtlpExample, type ExampleOutcome, type SinkExample } from "../../keboola/stream-examples";
import { sinkExampleRows } from "../kinds/sink/examples";
import type { ResourceChange, Review } from "./changes";
import { code } from "./values";

// A changed Sink's examples (its `examples` input) in the review: what each sample event becomes
// under the mapping before the change and after it, evaluated locally with the rules the provider
// checks them by at preview (provider/lifecycle/sink-examples.ts sinkExampleRows), so a reviewer
// sees what the change does to real events, not only which columns moved.

/** The type of the Source a sink's `sourceId` depends on, when the preview has it. */
function sourceTypeOf(r: ResourceChange, review: Review): string | undefined {
  const urns = r.new?.inputDependencies.sourceId ?? [];
  const source = review.resources.find((x) => urns.includes(x.urn) && x.kind === "Source");
  const type = source?.new?.inputs.type ?? source?.old?.inputs.type;
  if (typeof type === "string") return type;
  return source ? "http" : undefined;
}

const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");

/** One outcome in a table cell: the row's values by column, or what happened instead. */
function outcomeText(o: ExampleOutcome | undefined): string {
  if (!o) return "_(new sink)_";
  if (o.kind === "omitted") return `_omitted: the sink takes ${o.allowedSignals.join(", ") || "no"} signals, not ${o.signal}_`;
  if (o.kind === "wrong-source") return `_not an event of a ${o.sourceType} source_`;
  const values = Object.entries(o.row).map(([k, v]) => `${k}: ${o.varying.includes(k) ? "_(varies)_" : code(v)}`);
  if (o.kind === "refused") return `**refused**: ${cell(o.failures[0]?.message ?? "")}${values.length ? `; ${values.join(", ")}` : ""}`;
  return values.join(", ") || "_(no columns)_";
}

/** What an example sends, short. */
function exampleText(example: SinkExample): string {
  const body = isOtlpExample(example) ? `${example.signal}: ${JSON.stringify(example.record)}` : typeof example.payload === "string" ? example.payload : JSON.stringify(example.payload ?? null);
  return code(body.length > 80 ? `${body.slice(0, 77)}...` : body);
}

/** The lines of a created, updated or replaced Sink's examples; none when it declares none. */
export function exampleLines(r: ResourceChange, review: Review): string[] {
  if (r.kind !== "Sink" || !r.new || !Array.isArray(r.new.inputs.examples) || r.new.inputs.examples.length === 0) return [];
  const olds = r.op === "create" ? undefined : r.old?.inputs;
  const rows = sinkExampleRows(sourceTypeOf(r, review), olds, r.new.inputs);
  if (rows.length === 0) return [];
  const changed = rows.filter((x) => x.changed).length;
  const out = ["", `Examples (${r.op === "create" ? "rows this sink writes" : `${changed} of ${rows.length} change${changed === 1 ? "s" : ""}`}):`, ""];
  out.push("| # | event | before | after |", "|---:|---|---|---|");
  for (const row of rows) {
    const mark = row.changed && row.before ? " **changed**" : "";
    out.push(`| ${row.index} | ${exampleText(row.example)} | ${cell(outcomeText(row.before))} | ${cell(outcomeText(row.after))}${mark} |`);
  }
  return out;
}
