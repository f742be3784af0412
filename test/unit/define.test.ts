import { describe, expect, it } from "vitest";
import * as fs from "node:fs";
import * as path from "node:path";
import { spawnSync } from "node:child_process";
import { CATALOG } from "../../provider/catalog";
import { KIND_NAMES } from "../../provider/kinds/registry";
import { source } from "../../provider/kinds/source/kind";
import { sink } from "../../provider/kinds/sink/kind";
import { componentConfig } from "../../provider/kinds/component-config/kind";
import { keepsUnique } from "../../provider/lifecycle/define";
import type { Props } from "../../provider/lifecycle/types";

// One schema per resource (provider/lifecycle/define.ts): what is derived from it, how old state
// is read with it, and the boundaries between the modules around it.

const root = path.resolve(__dirname, "..", "..");

describe("derived from each resource's schema", () => {
  it("registers every input and output, and exactly the marked fields as secret", () => {
    for (const def of CATALOG) {
      expect(def.outputNames).toEqual(Object.keys(def.visible.shape));
      expect(def.outputNames).toEqual(expect.arrayContaining(Object.keys(def.outputs.shape)));
      expect(def.outputNames).toEqual(expect.arrayContaining(Object.keys((def.inputs as unknown as { shape: object }).shape)));
    }
    expect(Object.fromEntries(CATALOG.map((d) => [d.type, d.secretOutputs]))).toEqual({
      Source: ["url", "baseUrl", "secret"],
      Sink: [],
      SourceSettings: [],
      SinkSettings: [],
      VariableConfig: [],
      ComponentConfig: [],
      JobRun: [],
      Flow: [],
      Schedule: [],
      Bucket: [],
      Table: [],
      Branch: [],
    });
  });

  it("keeps the plain text of # values in a secret bookkeeping field, registered as secret", () => {
    expect(Object.fromEntries(CATALOG.map((d) => [d.type, d.secretState]))).toEqual({
      Source: ["url", "baseUrl", "secret"],
      Sink: [],
      SourceSettings: [],
      SinkSettings: [],
      VariableConfig: [],
      ComponentConfig: ["secretValues"],
      JobRun: [],
      Flow: [],
      Schedule: [],
      Bucket: [],
      Table: [],
      Branch: [],
    });
    expect(componentConfig.outputNames).not.toContain("secretValues");
  });

  it("keeps bookkeeping out of the class and the schema.json entry, but in state", () => {
    expect(componentConfig.outputNames).not.toContain("explicitConfigId");
    expect(Object.keys(componentConfig.state.shape)).toContain("explicitConfigId");
  });
});

describe("reading state", () => {
  it("reads a Source's state written by 0.1.0: the declared branch was `branch`, `branchId` the numeric one", () => {
    const old = { branch: "default", branchId: 101, sourceId: "events", name: "Events", description: "", type: "http", projectId: 4242, url: "https://in/x", adoptExisting: false, __provider: "exports.handler = ..." };
    expect(source.parseState(old)).toEqual({ branchId: "default", sourceId: "events", name: "Events", description: "", type: "http", enabled: true, projectId: 4242, url: "https://in/x", adoptExisting: false });
    // State without `branch` (0.2 and later) keeps its branchId, numeric ids as their text.
    expect(source.parseState({ branchId: "123", sourceId: "events", enabled: false })).toEqual({ branchId: "123", sourceId: "events", enabled: false });
    // Sources were all enabled before `enabled` was recorded.
    expect(source.parseState({ branchId: "123", sourceId: "events" })).toEqual({ branchId: "123", sourceId: "events", enabled: true });
    expect(sink.parseState({ branch: "555", branchId: 101, sinkId: "raw" })).toEqual({ branchId: "555", sinkId: "raw" });
  });

  it("leaves out a field this version cannot read instead of failing a refresh or a destroy", () => {
    expect(source.parseState({ sourceId: "events", projectId: "not a number", type: "carrier pigeon", enabled: true })).toEqual({ sourceId: "events", enabled: true });
    expect(componentConfig.parseState({})).toEqual({});
  });
});

describe("module boundaries", () => {
  const kindsDir = path.join(root, "provider", "kinds");
  const kindFolders = fs.readdirSync(kindsDir).filter((f) => fs.statSync(path.join(kindsDir, f)).isDirectory());

  it("kinds do not import each other (shared pieces live in shared modules), but for the stack's branch and nested settings", () => {
    expect(kindFolders.length).toBeGreaterThan(10);
    for (const folder of kindFolders) {
      for (const file of fs.readdirSync(path.join(kindsDir, folder))) {
        const text = fs.readFileSync(path.join(kindsDir, folder, file), "utf8");
        const imports = [...text.matchAll(/from "\.\.\/([\w-]+)\//g)].map((m) => m[1]).filter((i) => kindFolders.includes(i) && i !== folder);
        // A class is placed in the stack's development branch (branch/stack.ts); the sources and
        // sinks sections of a manifest hold and declare their settings (manifest.ts, declare.ts).
        const allowed = (i: string) => (file === "resource.ts" && i === "branch") || ((file === "declare.ts" || file === "manifest.ts") && i === "settings");
        expect({ file: `${folder}/${file}`, imports: imports.filter((i) => !allowed(i)) }).toEqual({ file: `${folder}/${file}`, imports: [] });
      }
    }
  });

  it("the layers stand on keboola/ (and the jsonnet engine under it): neither imports the provider or the emulator, and the emulator imports nothing of the provider", () => {
    const importsOf = (dir: string): Array<{ file: string; spec: string }> =>
      fs
        .readdirSync(path.join(root, dir), { recursive: true, encoding: "utf8" })
        .filter((f) => f.endsWith(".ts"))
        .flatMap((f) => {
          const text = fs.readFileSync(path.join(root, dir, f), "utf8");
          return [...text.matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g)].map((m) => ({
            file: `${dir}/${f}`,
            spec: path.relative(root, path.resolve(path.dirname(path.join(root, dir, f)), m[1])),
          }));
        });
    const shared = importsOf("keboola");
    expect(shared.length).toBeGreaterThan(0);
    // The Stream mapping rules (keboola/stream-mapping.ts) evaluate templates with jsonnet/.
    expect(shared.filter((i) => !i.spec.startsWith("keboola") && !i.spec.startsWith("jsonnet"))).toEqual([]);
    const engine = importsOf("jsonnet");
    expect(engine.length).toBeGreaterThan(0);
    expect(engine.filter((i) => !i.spec.startsWith("jsonnet"))).toEqual([]);
    const emulator = importsOf("emulator");
    expect(emulator.some((i) => i.spec.startsWith("keboola"))).toBe(true);
    expect(emulator.filter((i) => i.spec.startsWith("provider"))).toEqual([]);
  });

  it("a program using the provider, and the provider process running every kind, never load the emulator or its server libraries", () => {
    const script = `
      const keboola = require(${JSON.stringify(path.join(root, "dist", "provider", "index.js"))});
      const runtime = require(${JSON.stringify(path.join(root, "dist", "provider", "dynamic", "runtime.js"))});
      for (const kind of ${JSON.stringify(KIND_NAMES)}) {
        runtime.call(kind, "check", [{}, {}]).catch(() => undefined);
      }
      setImmediate(() => {
        const loaded = Object.keys(require.cache);
        console.log(JSON.stringify({ classes: Object.keys(keboola).length, modules: loaded.length, server: loaded.filter((f) => /[\\\\/](emulator|hono|@hono)[\\\\/]/.test(f)) }));
      });`;
    const res = spawnSync(process.execPath, ["-e", script], { encoding: "utf8", cwd: root });
    expect(res.stderr).toBe("");
    const out = JSON.parse(res.stdout) as { classes: number; modules: number; server: string[] };
    expect(out.classes).toBeGreaterThan(7);
    expect(out.modules).toBeGreaterThan(20);
    expect(out.server).toEqual([]);
  });
});

describe("keepsUnique", () => {
  const rule = (within: string[], orElse?: string) => ({ field: "displayName", within, what: "display name", ...(orElse ? { orElse } : {}) });
  const canon = (news: Props) => (f: string) => news[f];
  it("holds when some rule's scope is unchanged and its value (or the value it falls back to) stays the same", () => {
    const olds = { branchId: "1", stage: "in", displayName: "raw", name: "raw" };
    expect(keepsUnique([rule(["branchId", "stage"])], olds, canon({ ...olds, name: "other" }))).toBe(true);
    // One field of the scope changed: another scope, no clash.
    expect(keepsUnique([rule(["branchId", "stage"])], olds, canon({ ...olds, stage: "out" }))).toBe(false);
    expect(keepsUnique([rule(["branchId", "stage"])], olds, canon({ ...olds, displayName: "new" }))).toBe(false);
    // The value omitted: the field it falls back to stands for it, on both sides.
    expect(keepsUnique([rule(["branchId"], "name")], { branchId: "1", name: "raw" }, canon({ branchId: "1", name: "raw" }))).toBe(true);
    expect(keepsUnique([rule(["branchId"], "name")], { branchId: "1", name: "raw" }, canon({ branchId: "1", displayName: "raw" }))).toBe(true);
    // Any rule that holds is enough.
    expect(keepsUnique([rule(["stage"]), rule(["branchId"])], olds, canon({ ...olds, stage: "out" }))).toBe(true);
    expect(keepsUnique([], olds, canon(olds))).toBe(false);
  });
});
