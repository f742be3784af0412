// pull's file editing without a stack: the Document edits and the printing that keeps every line
// the edit does not change as the author wrote it.
import { describe, expect, it } from "vitest";
import * as fs from "node:fs";
import * as path from "node:path";
import { parseDocument } from "yaml";
import { printEdited, setValue } from "../../provider/drift/yaml-edit";
import { manifestDefaultAt } from "../../provider/manifest/parse";
import { unifiedDiff } from "../../provider/drift/unified-diff";

const FIXTURE = fs.readFileSync(path.join(__dirname, "fixtures", "stream.yaml"), "utf8");

function edit(text: string, edits: Array<[Array<string | number>, unknown]>): string {
  const doc = parseDocument(text);
  for (const [p, v] of edits) setValue(doc, p, v, manifestDefaultAt);
  return printEdited(text, doc);
}

describe("pull's edits of keboola.yaml", () => {
  it("gives the file back byte for byte when nothing changes (comments, folded text, aligned comments, flow padding)", () => {
    const columns = parseDocument(FIXTURE).getIn(["sinks", "events-raw", "columns"]);
    expect(edit(FIXTURE, [[["sinks", "events-raw", "columns"], (columns as { toJSON(): unknown }).toJSON()]])).toBe(FIXTURE);
    expect(edit(FIXTURE, [])).toBe(FIXTURE);
  });

  it("changes only the changed values' lines, in the spelling of the line they replace", () => {
    const out = edit(FIXTURE, [
      [["tables", "countries", "columns"], ["code", "name", "region"]],
      [["sources", "events", "settings", "targetImportTrigger"], { interval: "2m", count: 10000 }],
    ]);
    const changed = unifiedDiff(FIXTURE, out, "keboola.yaml").split("\n").filter((l) => /^[-+][^-+]/.test(l));
    expect(changed).toEqual([
      "-      targetImportTrigger: { interval: 2m, count: 5000 }",
      "+      targetImportTrigger: { interval: 2m, count: 10000 }",
      "-    columns: [code, name]    # ISO code first",
      "+    columns: [code, name, region]    # ISO code first",
    ]);
  });

  it("an edit of an anchored value leaves its aliases the old value", () => {
    const out = edit(FIXTURE, [[["sinks", "events-raw", "settings", "stagingUploadTrigger"], { interval: "45s" }]]);
    const doc = parseDocument(out);
    expect(doc.getIn(["sinks", "events-raw", "settings", "stagingUploadTrigger"], false)).toBeDefined();
    expect((doc.toJS() as { sinks: Record<string, { settings: unknown }> }).sinks).toMatchObject({
      "events-raw": { settings: { stagingUploadTrigger: { interval: "45s" } } },
      "events-copy": { settings: { stagingUploadTrigger: { interval: "10s" } } },
    });
    expect(out).not.toContain("*fast");
  });

  it("new keys holding the schema's default are not written; others are, at the end of their map", () => {
    const text = "schedules:\n  nightly:\n    flow: nightly # the flow\n    cron: \"0 3 * * *\"\n";
    expect(edit(text, [[["schedules", "nightly", "enabled"], true]])).toBe(text);
    expect(edit(text, [[["schedules", "nightly", "enabled"], false]])).toBe(`${text}    enabled: false\n`);
    const rows = "configurations:\n  c:\n    rows:\n      - { rowId: a, name: A }\n";
    expect(edit(rows, [[["configurations", "c", "rows"], [{ rowId: "a", name: "A" }, { name: "B", description: "", isDisabled: false, configuration: { x: "" } }]]])).toBe(
      `${rows}      - name: B\n        configuration:\n          x: ""\n`,
    );
  });

  it("removes a key, and a list item matched by identity, keeping the rest of the list as written", () => {
    const text = "configurations:\n  c:\n    description: old   # gone soon\n    rows:\n      - { rowId: a, name: A } # first\n      - { rowId: b, name: B }\n      - { rowId: c, name: C } # third\n";
    expect(
      edit(text, [
        [["configurations", "c", "description"], undefined],
        [["configurations", "c", "rows"], [{ rowId: "a", name: "A" }, { rowId: "c", name: "C" }]],
      ]),
    ).toBe("configurations:\n  c:\n    rows:\n      - { rowId: a, name: A } # first\n      - { rowId: c, name: C } # third\n");
  });
});

describe("unifiedDiff", () => {
  it("prints hunks with three lines of context and the line numbers of both sides", () => {
    const a = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";
    const b = "1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\n11\n";
    expect(unifiedDiff(a, b, "f")).toBe("--- a/f\n+++ b/f\n@@ -2,9 +2,10 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n 9\n 10\n+11\n");
    expect(unifiedDiff(a, a, "f")).toBe("");
  });
});
