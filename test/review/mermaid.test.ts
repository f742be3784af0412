import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as fs from "node:fs";
import * as path from "node:path";
import { renderReview } from "../../provider/review/index";
import { openMermaidPage, type MermaidPage, type RenderedNode } from "../../scripts/lib/mermaid-browser";
import { fixture, fixtureText, GOLDEN, mermaidOf, stepOf, type Fixture } from "./helpers";

// The review's Mermaid block rendered by the `mermaid` package in a real headless Chromium (the
// system's, at CHROMIUM_PATH or /usr/bin/chromium), as GitHub renders it: it must parse and render
// (no error picture), and every changed object must be in the picture with its change's class.
// One browser for the whole file.

let page: MermaidPage;

beforeAll(async () => {
  page = await openMermaidPage();
}, 60_000);

afterAll(async () => {
  await page?.close();
});

const diagramOf = (name: Fixture) => mermaidOf(renderReview(fixtureText(name)));
const byId = (nodes: RenderedNode[]) => new Map(nodes.map((n) => [n.id, n]));
const HIGHLIGHTS = ["created", "updated", "replaced", "deleted"];

async function rendered(definition: string) {
  const result = await page.render(definition);
  expect(result.svg.startsWith("<svg ")).toBe(true);
  // Mermaid's error picture: a `g.error-icon` and "Syntax error in text" (its style sheet always has an .error-icon rule).
  expect(/class="error-icon"|Syntax error in text/.test(result.svg), "mermaid drew its error picture").toBe(false);
  return { ...result, nodes: byId(result.nodes), clusters: byId(result.clusters) };
}

describe("the review's diagram in a browser", () => {
  it("fails on a broken diagram (the check below can fail)", async () => {
    await expect(page.render("flowchart LR\n  a[\"unclosed --> b")).rejects.toThrow(/Parse error|Lexical error|Expecting/);
  });

  it("renders the golden example with each changed node in its class and the others plain", async () => {
    const definition = mermaidOf(fs.readFileSync(path.join(GOLDEN, "quickstart-change.md"), "utf8"));
    const { nodes, clusters } = await rendered(definition);
    const expected: Record<string, string | undefined> = {
      componentconfig_users: "updated",
      sink_actions: "updated",
      table_countries: "updated",
      variableconfig_users_vars: "replaced",
      source_legacy: "deleted",
      source_events: undefined,
      sink_raw: undefined,
      sourcesettings_events_settings: undefined,
      sinksettings_actions_settings: undefined,
      table_in_c_quickstart_actions_v2: undefined,
      table_in_c_quickstart_raw: undefined,
    };
    expect([...nodes.keys()].sort()).toEqual(Object.keys(expected).sort());
    for (const [id, highlight] of Object.entries(expected)) {
      const node = nodes.get(id)!;
      expect(node.classes.filter((c) => HIGHLIGHTS.includes(c)), id).toEqual(highlight ? [highlight] : []);
      if (highlight) expect(node.text).toContain(`(${highlight})`);
    }
    expect(nodes.get("source_legacy")!.text).toBe("Sourcelegacy(deleted)");
    expect([...clusters.keys()].sort()).toEqual(["bucket_in_c_quickstart", "bucket_in_c_reference"]);
  });

  it("renders created objects (a first deploy), a created bucket's subgraph included", async () => {
    const { nodes, clusters } = await rendered(diagramOf("quickstart-first"));
    for (const id of ["source_events", "sink_actions", "table_countries", "componentconfig_users", "variableconfig_users_vars"]) expect(nodes.get(id)!.classes, id).toContain("created");
    expect(clusters.get("bucket_in_c_reference")!.classes).toContain("created");
    expect(nodes.get("table_in_c_quickstart_raw")!.classes).not.toContain("created"); // the sink's table, not a resource
  });

  it("renders flows, schedules and job runs, and the preview without unchanged resources", async () => {
    const flows = await rendered(diagramOf("flows-change"));
    expect(flows.nodes.get("componentconfig_orders_extractor")!.classes).toContain("replaced");
    expect(flows.nodes.get("flow_nightly")!.classes).toContain("updated");
    expect(flows.nodes.get("schedule_nightly")!.classes).toContain("updated");
    expect(flows.nodes.get("jobrun_orders_first_run")!.classes).toContain("replaced");
    const plain = await rendered(diagramOf("quickstart-change-plain"));
    expect(plain.nodes.get("source_legacy")!.classes).toContain("deleted");
    expect(plain.nodes.has("sink_raw")).toBe(false);
  });

  it("renders names with quotes, angle brackets and Mermaid's keywords as they are", async () => {
    const preview = fixture("quickstart-change");
    for (const step of preview.steps) {
      const odd = 'end "x" <b>&amp;</b>';
      const rename = (urn: string) => urn.replace(/::legacy$/, `::${odd}`);
      step.urn = rename(step.urn);
      for (const side of [step.oldState, step.newState]) if (side) side.urn = rename(side.urn);
    }
    expect(stepOf(preview, 'end "x" <b>&amp;</b>').op).toBe("delete");
    const { nodes } = await rendered(mermaidOf(renderReview(JSON.stringify(preview))));
    const node = [...nodes.values()].find((n) => n.classes.includes("deleted"))!;
    expect(node.text).toBe('Sourceend "x" <b>&amp;</b>(deleted)');
  });
});
