import type { Op, Review } from "./changes";
import { byCodePoint, compareResources, kindOfType, parseUrn } from "./changes";
import { factsOf, type Reference } from "./graph";
import { keboolaId } from "./kinds";

// The project's data flow as a Mermaid flowchart (GitHub renders ```mermaid blocks): sources ->
// sinks -> tables, tables inside their buckets (and everything of a development branch inside
// it), variables -> configurations -> flows -> schedules, configurations -> job runs, settings
// beside what they set. Changed objects carry a class per change (created, updated, replaced,
// deleted; deleted ones are drawn too) and say it in their label, so the picture reads without
// colours as well. Resources the preview only names (run without --show-sames) are drawn plain.

/** How a changed object is highlighted, in the legend's order. */
export const HIGHLIGHT_NAMES = ["created", "updated", "replaced", "deleted"] as const;
export type Highlight = (typeof HIGHLIGHT_NAMES)[number];

export const HIGHLIGHTS: Readonly<Record<Highlight, { style: string; legend: string }>> = {
  created: { style: "fill:#dafbe1,stroke:#1a7f37,color:#0f5323", legend: "green" },
  updated: { style: "fill:#fff8c5,stroke:#9a6700,color:#4d2d00", legend: "yellow" },
  replaced: { style: "fill:#fff1e5,stroke:#bc4c00,color:#762c00,stroke-width:2px", legend: "orange" },
  deleted: { style: "fill:#ffebe9,stroke:#cf222e,color:#82071e,stroke-dasharray:5 3", legend: "red, dashed" },
};

const CONTAINER_STYLE = "fill:#f6f8fa,stroke:#8c959f,color:#24292f";

const HIGHLIGHT_OF: Partial<Record<Op, Highlight>> = { create: "created", update: "updated", replace: "replaced", delete: "deleted" };

interface Node {
  key: string;
  id: string;
  kind: string;
  lines: string[];
  highlight?: Highlight;
  /** The key of the subgraph it is drawn in. */
  container?: string;
}

interface Container {
  key: string;
  id: string;
  label: string;
  highlight?: Highlight;
  parent?: string;
}

const SHAPES: Record<string, [string, string]> = {
  Source: ["([", "])"],
  Table: ["[(", ")]"],
  StorageTable: ["[(", ")]"],
  Bucket: ["[[", "]]"],
  Branch: ["[[", "]]"],
  Flow: ["{{", "}}"],
  Schedule: ["(", ")"],
  JobRun: [">", "]"],
};

/** A label as Mermaid reads it in quotes: its own entity codes for what would end or mark it up. */
function label(lines: string[]): string {
  const esc = (t: string) => t.replace(/&/g, "#amp;").replace(/"/g, "#quot;").replace(/</g, "#lt;").replace(/>/g, "#gt;");
  return `"${lines.map(esc).join("<br/>")}"`;
}

/** `says`: the word a highlighted label uses for its change (default the highlight's name; drift says "changed in Keboola"). */
export function mermaidDiagram(review: Review, references: readonly Reference[], says: Partial<Record<Highlight, string>> = {}): string[] {
  const word = (h: Highlight) => says[h] ?? h;
  const resources = review.resources.filter((r) => r.kind);
  const byUrn = new Map(resources.map((r) => [r.urn, r]));
  const usedIds = new Set<string>();
  const idFor = (prefix: string, name: string) => {
    const base = `${prefix}_${name}`.toLowerCase().replace(/[^a-z0-9_]+/g, "_");
    let id = base;
    for (let n = 2; usedIds.has(id); n++) id = `${base}_${n}`;
    usedIds.add(id);
    return id;
  };

  // Nodes: our resources, then those the references name that the preview does not list, then
  // storage tables no resource declares.
  const named = [...new Set(references.map((r) => r.to))].filter((to) => !byUrn.has(to));
  const context = named.filter((to) => to.startsWith("urn:")).map((urn) => ({ urn, ...parseUrn(urn) }));
  const entries = [
    ...resources.map((r) => ({ urn: r.urn, type: r.type, kind: r.kind!, name: r.name, op: r.op, id: keboolaId(r.kind!, factsOf(r)) })),
    ...context.flatMap((c) => {
      const kind = kindOfType(c.type);
      return kind ? [{ urn: c.urn, type: c.type, kind, name: c.name, op: undefined, id: undefined }] : [];
    }),
  ].sort(compareResources);

  const containers = new Map<string, Container>();
  const nodes = new Map<string, Node>();
  const refsFrom = (urn: string, input: string) => references.filter((r) => r.from === urn && r.input === input).map((r) => r.to);
  /** The subgraph of a bucket: the Bucket resource's (named by URN or found by id), or the id's own. */
  const bucketContainer = (bucketId: string, parent?: string, urn?: string): string => {
    const resource = entries.find((e) => e.kind === "Bucket" && (e.urn === urn || e.id === bucketId));
    const key = resource?.urn ?? `bucket:${bucketId}`;
    if (!containers.has(key)) {
      const highlight = resource?.op ? HIGHLIGHT_OF[resource.op] : undefined;
      containers.set(key, {
        key,
        id: idFor("bucket", bucketId),
        label: resource ? `Bucket ${resource.name}: ${bucketId}${highlight ? ` (${word(highlight)})` : ""}` : bucketId,
        ...(highlight ? { highlight } : {}),
        ...(parent ? { parent } : {}),
      });
    }
    return key;
  };
  const branchOf = (urn: string) => refsFrom(urn, "branchId").find((to) => entries.some((e) => e.urn === to && e.kind === "Branch"));
  const branchContainer = (urn: string): string => {
    const e = entries.find((x) => x.urn === urn)!;
    if (!containers.has(urn)) {
      const highlight = e.op ? HIGHLIGHT_OF[e.op] : undefined;
      containers.set(urn, { key: urn, id: idFor("branch", e.name), label: `Branch ${e.name}${highlight ? ` (${word(highlight)})` : ""}`, ...(highlight ? { highlight } : {}) });
    }
    return urn;
  };

  for (const e of entries) {
    if (e.kind === "Branch" || e.kind === "Bucket") continue; // containers, or nodes when empty (below)
    const branch = branchOf(e.urn);
    let container = branch ? branchContainer(branch) : undefined;
    if (e.kind === "Table") {
      const urn = refsFrom(e.urn, "bucketId").find((to) => entries.some((x) => x.urn === to && x.kind === "Bucket"));
      const bucket = e.id?.split(".").slice(0, 2).join(".") ?? entries.find((x) => x.urn === urn)?.id;
      if (bucket) container = bucketContainer(bucket, container, urn);
    }
    const highlight = e.op ? HIGHLIGHT_OF[e.op] : undefined;
    nodes.set(e.urn, {
      key: e.urn,
      id: idFor(e.kind, e.name),
      kind: e.kind,
      lines: [e.kind, e.name, ...(highlight ? [`(${word(highlight)})`] : [])],
      ...(highlight ? { highlight } : {}),
      ...(container ? { container } : {}),
    });
  }
  for (const tableId of named.filter((to) => to.startsWith("table:")).map((to) => to.slice("table:".length)).sort(byCodePoint)) {
    const sinks = references.filter((r) => r.to === `table:${tableId}`).map((r) => r.from);
    const branch = sinks.map(branchOf).find(Boolean);
    const bucket = tableId.split(".").slice(0, 2).join(".");
    nodes.set(`table:${tableId}`, { key: `table:${tableId}`, id: idFor("table", tableId), kind: "StorageTable", lines: ["table", tableId], container: bucketContainer(bucket, branch ? branchContainer(branch) : undefined) });
  }
  // Buckets and branches that hold nothing drawn are nodes of their own.
  const holding = new Set([...nodes.values()].map((n) => n.container).concat([...containers.values()].map((c) => c.parent)));
  for (const e of entries.filter((x) => x.kind === "Bucket" || x.kind === "Branch")) {
    if (holding.has(e.urn)) continue;
    containers.delete(e.urn);
    const highlight = e.op ? HIGHLIGHT_OF[e.op] : undefined;
    const branch = e.kind === "Bucket" ? branchOf(e.urn) : undefined;
    nodes.set(e.urn, {
      key: e.urn,
      id: idFor(e.kind, e.name),
      kind: e.kind,
      lines: [e.kind, e.name, ...(e.id && e.id !== e.name ? [e.id] : []), ...(highlight ? [`(${word(highlight)})`] : [])],
      ...(highlight ? { highlight } : {}),
      ...(branch ? { container: branchContainer(branch) } : {}),
    });
  }

  // Edges, in the direction data and runs go.
  const edges = new Set<string>();
  for (const ref of references) {
    const from = nodes.get(ref.from);
    const to = nodes.get(ref.to);
    if (!from || !to) continue; // containment (a bucket, a branch) or a resource of another package
    if (from.kind === "SinkSettings" && ref.input === "sourceId") continue; // drawn beside its sink
    if (from.kind === "Sink" && ref.input === "tableId") edges.add(`${from.id} --> ${to.id}`);
    else if (from.kind === "SourceSettings" || from.kind === "SinkSettings") edges.add(`${to.id} -.- ${from.id}`);
    else if (from.kind === "ComponentConfig" && (ref.input === "variables" || ref.input === "rows")) edges.add(`${to.id} -.-> ${from.id}`);
    else edges.add(`${to.id} --> ${from.id}`);
  }

  const out = ["flowchart LR"];
  const nodeLine = (n: Node, indent: string) => {
    const [open, close] = SHAPES[n.kind] ?? ["[", "]"];
    return `${indent}${n.id}${open}${label(n.lines)}${close}`;
  };
  const draw = (parent: string | undefined, indent: string) => {
    for (const c of [...containers.values()].filter((x) => x.parent === parent).sort((a, b) => byCodePoint(a.id, b.id))) {
      out.push(`${indent}subgraph ${c.id}[${label([c.label])}]`);
      draw(c.key, `${indent}  `);
      out.push(`${indent}end`);
    }
    const own = [...nodes.values()].filter((n) => n.container === parent);
    for (const n of own) out.push(nodeLine(n, indent));
  };
  draw(undefined, "  ");
  out.push(...[...edges].sort(byCodePoint).map((e) => `  ${e}`));
  // Subgraphs in grey unless changed: Mermaid's default (pale yellow) reads like "updated".
  const plainContainers = [...containers.values()].filter((c) => !c.highlight).map((c) => c.id);
  if (plainContainers.length) out.push(`  classDef container ${CONTAINER_STYLE}`, `  class ${plainContainers.sort(byCodePoint).join(",")} container`);
  for (const name of HIGHLIGHT_NAMES) {
    const { style } = HIGHLIGHTS[name];
    const ids = [...[...nodes.values()].filter((n) => n.highlight === name).map((n) => n.id), ...[...containers.values()].filter((c) => c.highlight === name).map((c) => c.id)];
    if (ids.length === 0) continue;
    out.push(`  classDef ${name} ${style}`);
    out.push(`  class ${ids.sort(byCodePoint).join(",")} ${name}`);
  }
  return out;
}
