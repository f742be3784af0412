import type { JsonValue } from "../../keboola/json";
import { KINDS } from "../kinds/registry";
import type { ResourceChange, Review, StateView } from "../review/changes";
import { compareResources, visible } from "../review/changes";
import { columnsDiffTable } from "../review/columns";
import { HIGHLIGHTS, mermaidDiagram } from "../review/diagram";
import type { Change } from "../review/diff";
import { referencesOf } from "../review/graph";
import { keboolaId } from "../review/kinds";
import { changeLines } from "../review/markdown";
import { code, formatPath, masked, showValue } from "../review/values";
import type { DriftStatus, ResourceDrift } from "./compare";
import type { Provenance } from "./live";
import { hintKey } from "./manifest-facts";

// The drift as the three readers want it: a terminal (text), a program (JSON), a pull request
// (Markdown in the review report's format: the summary per kind, the picture with the drifted
// objects marked, then each drifted object path by path with who changed it and when). Values are
// shown as the review shows them: never a `#` value, a ciphertext or an ingestion secret.

export interface DriftReport {
  stack: string;
  resources: ResourceDrift[];
}

const kindName = (d: ResourceDrift) => KINDS[d.resource.kind].type;
const label = (d: ResourceDrift) => `${kindName(d)} ${d.resource.name}`;

export function counts(report: DriftReport): Record<DriftStatus, number> {
  const n = (s: DriftStatus) => report.resources.filter((d) => d.status === s).length;
  return { changed: n("changed"), deleted: n("deleted"), same: n("same"), error: n("error") };
}

/** Whether anything drifted (exit code 2). */
export const drifted = (report: DriftReport) => report.resources.some((d) => d.status === "changed" || d.status === "deleted");

function idOf(d: ResourceDrift): string | undefined {
  return keboolaId(kindName(d), { ...d.resource.outputs, ...d.recorded } as Record<string, JsonValue>);
}

function provenanceText(p: Provenance | undefined): string | undefined {
  if (!p || (!p.at && !p.by && !p.description)) return undefined;
  return [p.by ? `by ${p.by}` : undefined, p.at ? `at ${p.at}` : undefined, p.description ? `“${p.description}”` : undefined].filter(Boolean).join(", ");
}

/** The next step for a drifted object. */
function consequence(d: ResourceDrift): string {
  return d.status === "deleted"
    ? "deleted in Keboola: `keboola-pulumi pull` records that in the state, and the next `pulumi up` creates it again (`pull --include-deleted` removes it from keboola.yaml instead)"
    : "the next `pulumi up` writes the declared values back; `keboola-pulumi pull` takes Keboola's into keboola.yaml instead";
}

function summaryLine(report: DriftReport): string {
  const c = counts(report);
  const total = report.resources.length;
  const parts = [c.changed ? `${c.changed} changed` : "", c.deleted ? `${c.deleted} deleted` : "", c.error ? `${c.error} not read` : ""].filter(Boolean);
  if (!parts.length) return `No drift: the ${total} objects of stack ${code(report.stack)} are as its last \`up\` left them.`;
  return `Drift in stack ${code(report.stack)}: **${parts.join(", ")}** outside the code, of ${total} objects.`;
}

// ---- text ----

function textChange(c: Change): string {
  const p = formatPath(c.path);
  switch (c.kind) {
    case "changed":
      return `  ~ ${p}: ${showValue(c.before, c.path)} → ${showValue(c.after, c.path)}`;
    case "added":
      return `  + ${p}: ${showValue(c.after, c.path)}`;
    case "removed":
      return `  - ${p}: ${showValue(c.before, c.path)}`;
    case "secret":
      return `  ~ ${p}: ${c.what} (secret, not shown)`;
  }
}

/** A change's line, with the stack config key to set when the manifest takes the value from `${name}`. */
function hinted(d: ResourceDrift, c: Change, line: string): string {
  const hint = d.fromConfig?.[hintKey(c)];
  return hint ? `${line}\n      (${hint})` : line;
}

/** Changes the manifest leaves to Keboola (options.ignoreChanges): listed apart, not drift. */
const withIgnored = (report: DriftReport) => report.resources.filter((d) => d.ignored?.length);

export function renderText(report: DriftReport): string {
  const out = [summaryLine(report).replace(/[`*]/g, ""), ""];
  for (const d of report.resources) {
    if (d.status === "same") continue;
    const id = idOf(d);
    out.push(`${label(d)}${id ? ` (${id})` : ""}: ${d.status === "error" ? "could not be read" : d.status === "deleted" ? "deleted in Keboola" : "changed in Keboola"}`);
    const who = provenanceText(d.provenance);
    if (who) out.push(`  ${who}`);
    if (d.status === "error") out.push(`  ${d.error ?? ""}`);
    out.push(...d.changes.map((c) => hinted(d, c, textChange(c))));
    if (d.status !== "error") out.push(`  → ${consequence(d).replace(/`/g, "")}`);
    out.push("");
  }
  const ignored = withIgnored(report);
  if (ignored.length) {
    out.push("Ignored (options.ignoreChanges in the manifest: Keboola's value stays, `up` and `pull` leave it alone):".replace(/`/g, ""));
    for (const d of ignored) out.push(`${label(d)}:`, ...(d.ignored ?? []).map(textChange));
    out.push("");
  }
  return `${out.join("\n").trimEnd()}\n`;
}

// ---- JSON ----

function jsonChange(c: Change): Record<string, JsonValue> {
  const path = formatPath(c.path);
  switch (c.kind) {
    case "changed":
      return { path, change: "changed", before: masked(c.before, c.path), after: masked(c.after, c.path) };
    case "added":
      return { path, change: "added", after: masked(c.after, c.path) };
    case "removed":
      return { path, change: "removed", before: masked(c.before, c.path) };
    case "secret":
      return { path, change: c.what, secret: true };
  }
}

export function renderJson(report: DriftReport): string {
  const doc = {
    stack: report.stack,
    drifted: drifted(report),
    counts: counts(report),
    resources: report.resources.map((d) => {
      const id = idOf(d);
      return {
        urn: d.resource.urn,
        kind: kindName(d),
        name: d.resource.name,
        ...(id ? { id } : {}),
        status: d.status,
        ...(d.provenance ? { changedBy: d.provenance } : {}),
        changes: d.changes.map((c) => ({ ...jsonChange(c), ...(d.fromConfig?.[hintKey(c)] ? { fromConfig: d.fromConfig[hintKey(c)] } : {}) })),
        ...(d.ignored?.length ? { ignored: d.ignored.map(jsonChange) } : {}),
        ...(d.error ? { error: d.error } : {}),
      };
    }),
  };
  return `${JSON.stringify(doc, null, 2)}\n`;
}

// ---- Markdown ----

/** The drift as a review: drifted objects are "updated" (changed in Keboola) or "deleted"; the rest unchanged. */
function asReview(report: DriftReport): Review {
  const view = (d: ResourceDrift, side: "recorded" | "live"): StateView => {
    return {
      ...(d.resource.id ? { id: d.resource.id } : {}),
      inputs: { ...visible(d.resource.inputs as Record<string, JsonValue>), ...(side === "live" ? d.live : d.recorded) },
      outputs: visible(d.resource.outputs as Record<string, JsonValue>),
      inputDependencies: Object.fromEntries(Object.entries(d.resource.propertyDependencies).filter(([k, v]) => !k.startsWith("__") && v.length > 0)),
      dependencies: d.resource.dependencies,
    };
  };
  const resources: ResourceChange[] = report.resources.map((d) => ({
    urn: d.resource.urn,
    type: d.resource.door === "plugin" ? `keboola:index:${kindName(d)}` : `pulumi-nodejs:dynamic/keboola:${kindName(d)}`,
    kind: kindName(d),
    name: d.resource.name,
    op: d.status === "changed" ? "update" : d.status === "deleted" ? "delete" : "same",
    pulumiOps: [],
    old: view(d, "recorded"),
    ...(d.status !== "deleted" ? { new: view(d, d.live ? "live" : "recorded") } : {}),
    replaceReasons: [],
  }));
  resources.sort(compareResources);
  return { resources, unlisted: 0, diagnostics: [], stack: report.stack };
}

const SAYS = { updated: "changed in Keboola", deleted: "deleted in Keboola" } as const;

export function renderMarkdown(report: DriftReport): string {
  const out = ["## Keboola drift", "", `${summaryLine(report)}`, ""];
  const kinds = [...new Set(report.resources.map(kindName))];
  const byKind = (kind: string, s: DriftStatus) => report.resources.filter((d) => kindName(d) === kind && d.status === s).length || "";
  if (kinds.length) {
    out.push("| kind | changed | deleted | unchanged |", "|---|---:|---:|---:|");
    for (const kind of kinds) out.push(`| ${kind} | ${byKind(kind, "changed")} | ${byKind(kind, "deleted")} | ${byKind(kind, "same")} |`);
    out.push("");
  }
  const deleted = report.resources.filter((d) => d.status === "deleted");
  const failed = report.resources.filter((d) => d.status === "error");
  if (deleted.length || failed.length) {
    out.push("> [!WARNING]");
    for (const d of deleted) {
      const id = idOf(d);
      out.push(`> - **Deleted in Keboola:** ${kindName(d)} ${code(d.resource.name)}${id ? ` (${code(id)})` : ""}: ${consequence(d)}.`);
    }
    for (const d of failed) out.push(`> - **Not read:** ${kindName(d)} ${code(d.resource.name)}: ${d.error ?? ""}`);
    out.push("");
  }
  const review = asReview(report);
  out.push("### Data flow", "", "```mermaid", ...mermaidDiagram(review, referencesOf(review.resources), SAYS), "```", "");
  out.push(`Highlighted: changed in Keboola (${HIGHLIGHTS.updated.legend}), deleted in Keboola (${HIGHLIGHTS.deleted.legend}).`, "");
  const changed = report.resources.filter((d) => d.status === "changed" || d.status === "deleted");
  out.push("### Changes made outside the code", "");
  if (changed.length === 0) out.push("Nothing drifted.", "");
  for (const d of changed) out.push(...section(d), "");
  const ignored = withIgnored(report);
  if (ignored.length) {
    out.push("### Ignored", "", "Changed in Keboola under a path the manifest's `options.ignoreChanges` names: Keboola's value stays, `up` and `pull` leave it alone.", "");
    for (const d of ignored) out.push(`#### ${kindName(d)} ${code(d.resource.name)}`, "", ...(d.ignored ?? []).flatMap((c) => changeLines(c)), "");
  }
  out.push("<sub>Made by <code>keboola-pulumi drift</code> from the stack's state and the provider's own reads (nothing was written). Secret values (<code>#</code> values, ciphertexts, ingestion URLs) are never shown.</sub>", "");
  return out.join("\n");
}

function section(d: ResourceDrift): string[] {
  const out = [`#### ${kindName(d)} ${code(d.resource.name)}: ${d.status === "deleted" ? "deleted in Keboola" : "changed in Keboola"}`, ""];
  const id = idOf(d);
  if (id) out.push(code(id), "");
  const who = provenanceText(d.provenance);
  if (who) out.push(`Last change ${who}.`, "");
  const columns = d.resource.kind === "sink" && d.changes.some((c) => c.path[0] === "columns") ? columnsDiffTable(d.recorded.columns, d.live?.columns) : undefined;
  out.push(...d.changes.filter((c) => !(columns && c.path[0] === "columns")).flatMap((c) => {
    const hint = d.fromConfig?.[hintKey(c)];
    return hint ? [...changeLines(c), `  _${hint.replace(/_/g, "\\_")}_`] : changeLines(c);
  }));
  if (columns) out.push("", "Columns (`+` added, `−` removed, `~` changed, `↕` moved):", "", ...columns);
  out.push("", `_${consequence(d)}._`);
  return out;
}
