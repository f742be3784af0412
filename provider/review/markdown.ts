import { maskIngestionSecrets } from "../../keboola/secrets";
import type { JsonValue } from "../../keboola/json";
import type { Op, ResourceChange, Review } from "./changes";
import { byCodePoint, kindOfType, parseUrn } from "./changes";
import { columnsDiffTable, columnsTable } from "./columns";
import { exampleLines } from "./examples";
import { mermaidDiagram, HIGHLIGHT_NAMES, HIGHLIGHTS } from "./diagram";
import { diffValues, type Change, type Diff } from "./diff";
import { factsOf, referencesOf, referrersOf, type Reference } from "./graph";
import { deleteEffect, keboolaId, replaceEffect } from "./kinds";
import { code, formatPath, showCode, UNKNOWN, type Path } from "./values";

// The review as Markdown for a pull request: the summary per kind, the warnings a reviewer must
// not miss (replacements with what refers to them, deletions, data reloads, a failed preview),
// the data flow diagram, then each changed resource with its changed paths. Everything is sorted,
// so the same preview gives the same text.

const OP_WORD: Record<Op, string> = { create: "create", update: "update", replace: "replace", delete: "delete", same: "unchanged", read: "read", import: "import", other: "other" };
const DONE: Record<Op, string> = { create: "created", update: "updated", replace: "replaced", delete: "deleted", same: "unchanged", read: "read", import: "imported", other: "other" };
const COUNTED: Op[] = ["create", "update", "replace", "delete"];

const title = (r: { kind?: string; type: string; name: string }) => `${r.kind ?? r.type} ${code(r.name)}`;

export function renderMarkdown(review: Review): string {
  const references = referencesOf(review.resources);
  const ours = review.resources.filter((r) => r.kind);
  const out: string[] = ["## Keboola changes", ""];
  if (review.stack) out.push(`Stack ${code(review.stack)}.`, "");
  out.push(...summary(review, ours), "");
  const warnings = warningLines(review, ours, references);
  if (warnings.length) out.push("### Warnings", "", ...warnings, "");
  out.push("### Data flow", "", ...diagramSection(review, references), "");
  const changed = ours.filter((r) => r.op !== "same");
  out.push("### Changes", "");
  if (changed.length === 0) out.push("Nothing of Keboola changes.", "");
  for (const r of changed) out.push(...resourceSection(r, review), "");
  const others = review.resources.filter((r) => !r.kind && r.op !== "same");
  if (others.length) {
    out.push("### Other resources", "", ...others.map((r) => `- ${OP_WORD[r.op]}: ${code(r.type)} ${code(r.name)}`), "");
  }
  out.push("<sub>Made by <code>keboola-pulumi review</code> from <code>pulumi preview --json</code>. Secret values (Pulumi secrets, <code>#</code> values, ciphertexts, ingestion URLs) are never shown.</sub>", "");
  return out.join("\n");
}

function summary(review: Review, ours: ResourceChange[]): string[] {
  const count = (op: Op, kind?: string) => ours.filter((r) => r.op === op && (kind === undefined || r.kind === kind)).length;
  const totals = COUNTED.filter((op) => count(op)).map((op) => `${count(op)} to ${op}`);
  const unchanged = count("same") + review.unlisted;
  const failed = review.diagnostics.some((d) => d.severity === "error");
  const line = failed ? `**The preview failed**${totals.length ? ` after ${totals.join(", ")}` : ""}` : totals.length ? `**${totals.join(", ")}**` : "**No changes**";
  const out = [`${line}${unchanged ? `; ${unchanged} unchanged` : ""}.`];
  const kinds = [...new Set(ours.map((r) => r.kind!))];
  if (kinds.length === 0) return out;
  const withSames = review.unlisted === 0;
  const extra = ours.some((r) => !COUNTED.includes(r.op) && r.op !== "same");
  // The changes this preview has (none: every kind of change), the unchanged ones when listed.
  const ops = COUNTED.some((op) => count(op)) ? COUNTED.filter((op) => count(op)) : COUNTED;
  const columns = [...ops.map((op) => `to ${op}`), ...(withSames ? ["unchanged"] : []), ...(extra ? ["other"] : [])];
  out.push("", `| kind | ${columns.join(" | ")} |`, `|---|${columns.map(() => "---:").join("|")}|`);
  for (const kind of kinds) {
    const n = (op: Op) => (count(op, kind) ? String(count(op, kind)) : "");
    const others = ours.filter((r) => r.kind === kind && !COUNTED.includes(r.op) && r.op !== "same").map((r) => OP_WORD[r.op]);
    const cells = [...ops.map(n), ...(withSames ? [n("same")] : []), ...(extra ? [others.join(", ")] : [])];
    out.push(`| ${kind} | ${cells.join(" | ")} |`);
  }
  if (!withSames) out.push("", `_${review.unlisted} unchanged resources are not in this preview: \`pulumi preview --json --show-sames\` lists them, and the diagram then shows the whole project._`);
  return out;
}

/** `Kind name` of a URN, with what happens to it. */
function describeUrn(urn: string, review: Review): string {
  const r = review.resources.find((x) => x.urn === urn);
  if (r) return `${title(r)} (${DONE[r.op]})`;
  if (urn.startsWith("table:")) return `table ${code(urn.slice("table:".length))}`;
  const { type, name } = parseUrn(urn);
  return `${kindOfType(type) ?? type} ${code(name)} (not in this preview)`;
}

/** `Kind name` of a URN. */
function urnName(urn: string): string {
  const { type, name } = parseUrn(urn);
  return `${kindOfType(type) ?? type} ${code(name)}`;
}

function idOf(r: ResourceChange, side: "old" | "new"): string | undefined {
  if (!r.kind) return undefined;
  const facts = side === "old" ? { ...r.old?.inputs, ...r.old?.outputs } : factsOf(r);
  return keboolaId(r.kind, facts);
}

/** What deleting it does: deleted with another resource deleted too, or its kind's effect. */
function deleteText(r: ResourceChange, review: Review): string {
  const withIt = r.old?.deletedWith ? review.resources.find((x) => x.urn === r.old?.deletedWith && x.op === "delete") : undefined;
  return withIt ? `deleted with ${title(withIt)}, nothing of its own is sent` : deleteEffect(r.kind!, { ...r.old?.inputs, ...r.old?.outputs });
}

/** `old id → new id`, as a replacement changes it. */
function replacedIds(r: ResourceChange): string {
  const before = idOf(r, "old");
  const after = idOf(r, "new");
  const next = after ? code(after) : r.kind === "JobRun" ? "a new job" : "a new id";
  return `${before ? code(before) : "(no id)"} → ${next}`;
}

function warningLines(review: Review, ours: ResourceChange[], references: readonly Reference[]): string[] {
  const replaced: string[] = [];
  const deleted: string[] = [];
  const reloads: string[] = [];
  for (const r of ours) {
    if (r.op === "replace") {
      const because = r.replaceReasons.length ? `, because ${r.replaceReasons.map(code).join(", ")} changed` : "";
      const referrers = referrersOf(r.urn, references);
      const by = referrers.length ? ` Referenced by ${referrers.map((x) => `${describeUrn(x.urn, review)} through ${x.inputs.map(code).join(", ")}`).join("; ")}.` : " Nothing in this preview refers to it.";
      replaced.push(`**Replaced:** ${title(r)} (${replacedIds(r)})${because}: ${replaceEffect(r.kind!)}.${by}`);
    }
    if (r.op === "delete") {
      const id = idOf(r, "old");
      const referrers = referrersOf(r.urn, references).filter((x) => review.resources.find((y) => y.urn === x.urn)?.op !== "delete");
      const still = referrers.length ? ` Still referenced by ${referrers.map((x) => describeUrn(x.urn, review)).join(", ")}.` : "";
      deleted.push(`**Deleted:** ${title(r)}${id ? ` (${code(id)})` : ""}: ${deleteText(r, review)}.${still}`);
    }
    const reload = dataReload(r);
    if (reload) reloads.push(`**Data reload:** ${title(r)}${idOf(r, "new") ? ` (${code(idOf(r, "new")!)})` : ""}: ${reload}.`);
  }
  const items = [...replaced, ...deleted, ...reloads];
  const failed = review.diagnostics.some((d) => d.severity === "error");
  const out: string[] = [];
  if (failed) out.push("> [!CAUTION]", "> The preview failed: `pulumi up` would not run as shown here. See the diagnostics below.", "");
  if (items.length) out.push("> [!WARNING]", ...items.map((i) => `> - ${i}`), "");
  const diagnostics = review.diagnostics.filter((d) => d.severity === "error" || d.severity === "warning");
  if (diagnostics.length) {
    out.push("Diagnostics of the preview:", "");
    for (const d of diagnostics) {
      const text = maskIngestionSecrets(d.message).trimEnd();
      const fence = "`".repeat(Math.max(3, ...(text.match(/`+/g) ?? []).map((m) => m.length + 1)));
      out.push(`- ${d.severity}${d.urn ? ` (${urnName(d.urn)})` : ""}:`, "", `  ${fence}text`, ...text.split("\n").map((l) => `  ${l}`), `  ${fence}`, "");
    }
  }
  return out.length && out[out.length - 1] === "" ? out.slice(0, -1) : out;
}

/** What a table's change does to its rows, when it loads data into an existing table. */
function dataReload(r: ResourceChange): string | undefined {
  if (r.kind !== "Table" || (r.op !== "update" && r.op !== "replace") || !r.new) return undefined;
  const before = r.old?.inputs.dataContent;
  const after = r.new.inputs.dataContent;
  if (after === undefined || JSON.stringify(before) === JSON.stringify(after)) return undefined;
  return `its rows are replaced by those of ${dataSource(r.new.inputs.data)} (${sizes(before, after)})`;
}

/** `59 B → 71 B (sha256 7953342497ab… → 48b532d2dd0c…)` from two `dataContent` values. */
function sizes(before: JsonValue | undefined, after: JsonValue | undefined): string {
  const a = dataSize(before);
  const b = dataSize(after);
  if (a.hash && b.hash) return `${a.size} → ${b.size}, sha256 ${a.hash}… → ${b.hash}…`;
  return `${a.size} → ${b.size}`;
}

function dataSource(data: JsonValue | undefined): string {
  if (typeof data === "string") return code(data);
  if (data && typeof data === "object" && !Array.isArray(data) && Array.isArray(data.rows)) return `${data.rows.length} declared rows`;
  return "the declared data";
}

/** `dataContent` (`59 B, sha256 <hex>`, provider/validation/storage.ts contentSummary) as its size and a short hash. */
function dataSize(content: JsonValue | undefined): { size: string; hash?: string } {
  if (typeof content !== "string" || content === UNKNOWN) return { size: content === undefined ? "none" : showCode(content) };
  const m = /^(.*), sha256 ([0-9a-f]{12})[0-9a-f]*$/.exec(content);
  return m ? { size: m[1], hash: m[2] } : { size: showCode(content) };
}

function diagramSection(review: Review, references: readonly Reference[]): string[] {
  const lines = mermaidDiagram(review, references);
  const legend = HIGHLIGHT_NAMES.map((h) => `${h} (${HIGHLIGHTS[h].legend})`).join(", ");
  return ["```mermaid", ...lines, "```", "", `Highlighted: ${legend}. Each changed object also says its change in its label.`];
}

function resourceSection(r: ResourceChange, review: Review): string[] {
  const out = [`#### ${title(r)}: ${OP_WORD[r.op]}`, ""];
  const id = idOf(r, "new") ?? idOf(r, "old");
  if (r.op === "replace") out.push(`${replacedIds(r)}${r.replaceReasons.length ? `, replaced because ${r.replaceReasons.map(code).join(", ")} changed` : ""}.`, "");
  else if (r.op === "delete") out.push(`${idOf(r, "old") ? `${code(idOf(r, "old")!)}: ` : ""}${deleteText(r, review)}.`, "");
  else if (id) out.push(code(id), "");
  if (r.op === "create" && r.new) out.push(...createdLines(r));
  else if ((r.op === "update" || r.op === "replace") && r.new) out.push(...updatedLines(r, review));
  else if (r.op !== "delete") out.push(`Pulumi's step: ${r.pulumiOps.map(code).join(", ")}.`);
  if (r.op === "create" || r.op === "update" || r.op === "replace") out.push(...exampleLines(r, review));
  return out[out.length - 1] === "" ? out.slice(0, -1) : out;
}

/** The lines of one change: an object added or removed whole is shown leaf by leaf. */
export function changeLines(c: Change, unknownFrom?: (c: Change) => string): string[] {
  const p = code(formatPath(c.path));
  switch (c.kind) {
    case "changed":
      return [`- ${p}: ${showCode(c.before, c.path)} → ${showCode(c.after, c.path)}${c.after === UNKNOWN && unknownFrom ? unknownFrom(c) : ""}`];
    case "added":
    case "removed": {
      const value = c.kind === "added" ? c.after : c.before;
      const parts = leaves(value, c.path);
      if (parts.length === 0 || (parts.length === 1 && parts[0][0].length === c.path.length)) return [`- ${p}: ${showCode(value, c.path)} (${c.kind})`];
      return [`- ${p}: (${c.kind})`, ...parts.map(([path, v]) => `  - ${code(formatPath(path.slice(c.path.length)))}: ${showCode(v, path)}`)];
    }
    case "secret":
      return [`- ${p}: ${c.what} (secret, not shown)`];
  }
}

const top = (path: Path) => path[0];

function updatedLines(r: ResourceChange, review: Review): string[] {
  const diff = diffValues(r.old?.inputs ?? {}, r.new!.inputs);
  // A value not known before `up` comes from resources that change first: name them.
  const unknownFrom = (c: Change) => {
    const urns = r.new?.inputDependencies[String(c.path[0])] ?? [];
    const changing = urns.map((u) => review.resources.find((x) => x.urn === u)).filter((x): x is ResourceChange => x !== undefined && x.op !== "same");
    return changing.length ? ` (from ${changing.map((x) => `${title(x)}, ${DONE[x.op]} first`).join("; ")})` : "";
  };
  const out: string[] = [];
  out.push(...diff.changes.filter((c) => !special(r, c.path)).flatMap((c) => changeLines(c, unknownFrom)));
  const tables = [r.old?.inputs.tableId, r.new!.inputs.tableId];
  if (r.kind === "Sink" && typeof tables[0] === "string" && typeof tables[1] === "string" && tables[0] !== tables[1] && tables[1] !== UNKNOWN) {
    out.push(`- events go to ${code(tables[1])} from now on (the service creates it with the mapping's columns when it is missing); ${code(tables[0])} and its rows stay`);
  }
  if (r.kind === "Sink" && diff.changes.some((c) => top(c.path) === "columns")) {
    const table = columnsDiffTable(r.old?.inputs.columns, r.new!.inputs.columns);
    if (table) out.push("", "Columns (`+` added, `−` removed, `~` changed, `↕` moved):", "", ...table);
    else out.push(...diff.changes.filter((c) => top(c.path) === "columns").flatMap((c) => changeLines(c)));
  }
  if (r.kind === "Table" && diff.changes.some((c) => top(c.path) === "data" || top(c.path) === "dataContent")) {
    const before = r.old?.inputs;
    const after = r.new!.inputs;
    const was = JSON.stringify(before?.data) !== JSON.stringify(after.data) ? ` (was ${before?.data === undefined ? "none" : dataSource(before.data)})` : "";
    out.push(`- data: ${dataSource(after.data)}${was}, ${sizes(before?.dataContent, after.dataContent)}`);
  }
  // A replacement writes everything anew: whether a secret changed does not matter there.
  if (r.op === "update") out.push(...secretLines(r, diff, out.length > 0));
  if (out.length === 0) out.push("No input shown changed.");
  return out;
}

/** Inputs rendered by a kind's own view instead of path by path. */
function special(r: ResourceChange, path: Path): boolean {
  return (r.kind === "Sink" && top(path) === "columns") || (r.kind === "Table" && (top(path) === "data" || top(path) === "dataContent"));
}

/** What the preview's secrets let it say: which one changed, or that they are not compared. */
function secretLines(r: ResourceChange, diff: Diff, shownChanges: boolean): string[] {
  if (diff.opaque.length === 0) {
    if (shownChanges) return [];
    const drift = diffValues(Object.fromEntries(Object.keys(r.new!.inputs).map((k) => [k, r.old?.outputs[k] ?? null])), r.new!.inputs);
    if (drift.changes.length === 0) return [];
    return ["The inputs are as before, but what the state recorded of Keboola differs from them (a change made outside this stack, found by `pulumi refresh`): the update writes them back.", "", ...drift.changes.flatMap((c) => changeLines(c))];
  }
  const paths = diff.opaque.map((p) => code(formatPath(p)));
  if (shownChanges) return [`- not compared: ${paths.join(", ")} (Pulumi secrets, hidden on both sides of the preview: ${paths.length === 1 ? "it" : "they"} may have changed too)`];
  if (paths.length === 1) return [`- ${paths[0]}: changed (secret, not shown)`];
  return [`- one or more of these secrets changed (not shown): ${paths.join(", ")}`];
}

/** A created resource's inputs, leaf by leaf (values that say nothing, false or empty, left out). */
function createdLines(r: ResourceChange): string[] {
  const inputs = r.new!.inputs;
  const empty = (v: JsonValue) => v === false || v === "" || v === null || (Array.isArray(v) && v.length === 0);
  const lines = leaves(inputs, [])
    .filter(([path, value]) => !special(r, path) && !empty(value))
    .map(([path, value]) => `- ${code(formatPath(path))}: ${showCode(value, path)}`);
  const out: string[] = [];
  if (lines.length > 12) out.push(`<details><summary>${lines.length} inputs</summary>`, "", ...lines, "", "</details>");
  else out.push(...lines);
  if (r.kind === "Sink") {
    const table = columnsTable(inputs.columns);
    if (table) out.push("", "Columns:", "", ...table);
  }
  if (r.kind === "Table" && inputs.data !== undefined) {
    const { size, hash } = dataSize(inputs.dataContent);
    out.push(`- data: ${dataSource(inputs.data)}, ${size}${hash ? `, sha256 ${hash}…` : ""}`);
  }
  return out;
}

/** Every leaf of a value with its path; a list of scalars is one leaf. */
function leaves(value: JsonValue, path: Path): Array<[Path, JsonValue]> {
  if (Array.isArray(value)) return value.every((v) => v === null || typeof v !== "object") ? [[path, value]] : value.flatMap((v, i) => leaves(v, [...path, i]));
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value).sort(byCodePoint);
    return keys.length ? keys.flatMap((k) => leaves(value[k], [...path, k])) : [];
  }
  return [[path, value]];
}
