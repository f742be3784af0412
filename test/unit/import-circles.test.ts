import { describe, expect, it } from "vitest";
import * as fs from "node:fs";
import * as path from "node:path";

// No import circle in the layers (CONTRIBUTING.md, "Layout"): a module never reaches itself through
// what it imports. Type-only imports count (a circle of types is still a knot a newcomer must
// untie to read either file), and so do `typeof import("...")` and `require("...")` of a path.

const root = path.resolve(__dirname, "..", "..");
const LAYERS = ["keboola", "jsonnet", "provider", "emulator"];

/** Each source file of the layers and the files of the layers it imports. */
function importGraph(): Map<string, string[]> {
  const files = LAYERS.flatMap((dir) =>
    fs
      .readdirSync(path.join(root, dir), { recursive: true, encoding: "utf8" })
      .filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts") && !f.endsWith(".test.ts"))
      .map((f) => path.join(dir, f)),
  );
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = fs.readFileSync(path.join(root, file), "utf8");
    const specs = [...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|\brequire\s*\(\s*|^import\s+)["'](\.{1,2}\/[^"'`$]+)["']/gm)].map((m) => m[1]);
    const targets = specs.flatMap((spec) => {
      const base = path.normalize(path.join(path.dirname(file), spec));
      const hit = [`${base}.ts`, path.join(base, "index.ts"), base].find((c) => known.has(c));
      return hit ? [hit] : [];
    });
    graph.set(file, targets);
  }
  return graph;
}

/** The strongly connected components of more than one file (Tarjan's algorithm): the circles. */
function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    for (let w = stack.pop(); w !== undefined; w = w === v ? undefined : stack.pop()) {
      onStack.delete(w);
      component.push(w);
    }
    if (component.length > 1) out.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}

describe("import circles", () => {
  it("finds a circle where there is one (the finder itself)", () => {
    const graph = new Map([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["c.ts"]],
      ["c.ts", ["a.ts"]],
      ["d.ts", ["a.ts"]],
    ]);
    expect(circles(graph)).toEqual([["a.ts", "b.ts", "c.ts"]]);
  });

  it("reads the layers' imports, type-only ones included", () => {
    const graph = importGraph();
    // runtime.ts takes the shim's Runtime type: an `import type` line is read as an import.
    expect(graph.get(path.join("provider", "dynamic", "runtime.ts"))).toContain(path.join("provider", "dynamic", "shim.ts"));
    expect(graph.get(path.join("provider", "kinds", "source", "kind.ts"))).toContain(path.join("provider", "lifecycle", "define.ts"));
  });

  it("keeps the kinds above their machinery: provider/lifecycle/ imports no kind", () => {
    const lifecycle = [...importGraph()].filter(([file]) => file.startsWith(path.join("provider", "lifecycle") + path.sep));
    expect(lifecycle.length).toBeGreaterThan(10);
    expect(lifecycle.flatMap(([file, targets]) => targets.filter((t) => t.startsWith(path.join("provider", "kinds") + path.sep)).map((t) => `${file} -> ${t}`))).toEqual([]);
  });

  it("has none in keboola/, jsonnet/, provider/ and emulator/", () => {
    expect(circles(importGraph())).toEqual([]);
  });
});
