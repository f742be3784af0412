import { describe, expect, it } from "vitest";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { loadManifest, ManifestError, parseManifest, type ManifestProblem } from "../../provider/manifest/parse";

// keboola.yaml parsing: every problem carries the file, the line and column of the offending
// node, the property path and a fix; all problems are reported together.

const GOOD = `sources:
  events:
    name: App Events
    settings:
      targetImportTrigger: { interval: 1m, count: 1000 }
sinks:
  actions:
    source: events
    name: User actions
    tableId: in.c-app.actions
    columns:
      - { type: uuid, name: id }
      - { type: path, name: user, path: user.id }
variables:
  vars:
    name: Variables
    variables: [{ name: limit, type: int }]
    defaultValues: { limit: 10 }
configurations:
  users:
    componentId: keboola.ex-generic-v2
    name: Users
    variables: vars
    configuration: { parameters: { limit: "{{limit}}" } }
    rows:
      - { rowId: active, name: Active }
jobs:
  run-users:
    configuration: users
    triggers: [1]
`;

function problemsOf(text: string): ManifestProblem[] {
  try {
    parseManifest(text, "m.yaml");
  } catch (err) {
    expect(err).toBeInstanceOf(ManifestError);
    return (err as ManifestError).problems;
  }
  throw new Error("expected the manifest to be refused");
}

/** Line and column (1-based) of the n-th occurrence of `needle` in `text`. */
function positionOf(text: string, needle: string, nth = 1): { line: number; column: number } {
  let at = -1;
  for (let i = 0; i < nth; i++) at = text.indexOf(needle, at + 1);
  if (at < 0) throw new Error(`"${needle}" not in the text`);
  const before = text.slice(0, at).split("\n");
  return { line: before.length, column: before[before.length - 1].length + 1 };
}

describe("manifest parsing", () => {
  it("accepts a manifest with every entry kind and applies the resources' defaults", () => {
    const m = parseManifest(GOOD);
    expect(Object.keys(m)).toEqual(["sources", "sinks", "variables", "configurations", "jobs"]);
    expect(m.sources!.events).toMatchObject({ name: "App Events", type: "http", adoptExisting: false });
    // An entry that names no branch keeps it unnamed: the stack's keboola:branch, else the default branch (kinds/branch.ts, stackBranch).
    expect(m.sources!.events.branchId).toBeUndefined();
    expect(m.sinks!.actions).toMatchObject({ source: "events", enabled: true });
    expect(m.variables!.vars.defaultValues).toEqual({ limit: "10" });
    expect(m.configurations!.users.rows[0]).toMatchObject({ rowId: "active", isDisabled: false, configuration: {} });
    expect(m.jobs!["run-users"].configuration).toBe("users");
  });

  it("unknown key: at the key itself, with the keys it may have meant", () => {
    const text = GOOD.replace("    tableId: in.c-app.actions\n", "    tableId: in.c-app.actions\n    tabelId: x\n");
    const [p, ...rest] = problemsOf(text);
    expect(rest).toEqual([]);
    expect(p).toMatchObject({ file: "m.yaml", ...positionOf(text, "tabelId"), path: "sinks.actions.tabelId" });
    expect(p.message).toMatch(/unknown key "tabelId": remove it, or use one of: source, sinkId, name, .*tableId/);
  });

  it("unknown section at the top level", () => {
    const text = `${GOOD}schedulez: {}\n`;
    const [p] = problemsOf(text);
    expect(p).toMatchObject({ ...positionOf(text, "schedulez:"), path: "schedulez" });
    expect(p.message).toContain("use one of: sources, buckets, tables, sinks, variables, configurations, flows, schedules, jobs");
  });

  it("wrong type: at the value, naming the expected type", () => {
    const text = GOOD.replace("tableId: in.c-app.actions", "tableId: 42");
    const [p] = problemsOf(text);
    expect(p).toMatchObject({ ...positionOf(text, "42"), path: "sinks.actions.tableId" });
    expect(p.message).toMatch(/expected string, received number: write a string/);
  });

  it("missing required field: at the entry, saying what to add", () => {
    const text = GOOD.replace("    name: User actions\n", "");
    const [p] = problemsOf(text);
    expect(p).toMatchObject({ ...positionOf(text, "source: events"), path: "sinks.actions.name" });
    expect(p.message).toMatch(/required: add name/);
  });

  it("a resource rule (out-of-range setting) at the value inside settings", () => {
    const text = GOOD.replace("count: 1000", "count: 0");
    const [p] = problemsOf(text);
    expect(p).toMatchObject({ ...positionOf(text, "0 }"), path: "sources.events.settings.targetImportTrigger.count" });
    expect(p.message).toMatch(/must be at least 1/);
  });

  it("a resource refinement (undeclared default value) at the value", () => {
    const text = GOOD.replace("defaultValues: { limit: 10 }", "defaultValues: { limit: 10, since: x }");
    const [p] = problemsOf(text);
    expect(p).toMatchObject({ ...positionOf(text, "x }"), path: "variables.vars.defaultValues.since" });
    expect(p.message).toMatch(/"since" is not a declared variable/);
  });

  it("dangling reference: at the reference, listing the keys that exist", () => {
    const text = GOOD.replace("source: events", "source: event").replace("configuration: users", "configuration: user");
    const problems = problemsOf(text);
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatchObject({ ...positionOf(text, "event\n"), path: "sinks.actions.source" });
    expect(problems[0].message).toMatch(/"event" is not a key under sources \(one of: events\)/);
    expect(problems[1]).toMatchObject({ ...positionOf(text, "user\n"), path: "jobs.run-users.configuration" });
  });

  it("dangling variables reference when no variables are declared", () => {
    const text = GOOD.replace(/variables:\n {2}vars:\n(?: {4}.*\n)+/, "");
    const [p] = problemsOf(text);
    expect(p).toMatchObject({ ...positionOf(text, "vars\n"), path: "configurations.users.variables" });
    expect(p.message).toMatch(/none is declared: add it under variables/);
  });

  it("a row binds variables of its own by key; a dangling one is reported at the row", () => {
    const bound = GOOD.replace("      - { rowId: active, name: Active }", "      - { rowId: active, name: Active, variables: vars }");
    expect(parseManifest(bound).configurations!.users.rows[0]).toMatchObject({ rowId: "active", variables: "vars" });
    const text = bound.replace("variables: vars }", "variables: varz }");
    const [p] = problemsOf(text);
    expect(p).toMatchObject({ ...positionOf(text, "varz }"), path: "configurations.users.rows[0].variables" });
    expect(p.message).toBe('"varz" is not a key under variables (one of: vars): name an entry of variables');
    // A bound row may not write the keys the binding writes.
    const [q] = problemsOf(bound.replace("name: Active, variables: vars }", "name: Active, variables: vars, configuration: { variables_id: '1' } }"));
    expect(q).toMatchObject({ path: "configurations.users.rows[0].configuration.variables_id" });
    expect(q.message).toMatch(/is written from the row's variables input/);
  });

  it("duplicate key: at the second occurrence, naming the first", () => {
    const text = GOOD.replace("    name: Users\n", "    name: Users\n    name: Others\n");
    const [p] = problemsOf(text);
    expect(p).toMatchObject({ ...positionOf(text, "name: Others"), path: "configurations.users" });
    expect(p.message).toBe(`duplicate key "name" (first at line ${positionOf(text, "name: Users").line}): each key may appear once; rename one or merge them`);
  });

  it("duplicate entry key in a section", () => {
    const text = GOOD.replace("jobs:\n", "jobs:\n  run-users:\n    configuration: users\n");
    const [p] = problemsOf(text);
    expect(p).toMatchObject({ ...positionOf(text, "run-users:", 2), path: "jobs" });
    expect(p.message).toMatch(/duplicate key "run-users" \(first at line \d+\)/);
  });

  it("reports every problem at once, sorted by position, in the error message", () => {
    const text = GOOD.replace("name: App Events", "name: 7").replace("tableId: in.c-app.actions", "tableId: nope");
    try {
      parseManifest(text, "m.yaml");
      throw new Error("expected a failure");
    } catch (err) {
      const msg = (err as Error).message;
      expect(msg).toMatch(/^2 problems in the manifest, nothing was deployed:/);
      const a = positionOf(text, "7\n");
      const b = positionOf(text, "nope");
      expect(msg).toContain(`m.yaml:${a.line}:${a.column}: sources.events.name:`);
      expect(msg).toContain(`m.yaml:${b.line}:${b.column}: sinks.actions.tableId: must be a Storage table id`);
    }
  });

  it("a missing file names the file and the stack config key", () => {
    const file = path.join(os.tmpdir(), `missing-${process.pid}.yaml`);
    expect(() => loadManifest(file)).toThrow(/cannot read the manifest: the file does not exist.*keboola:manifest/);
  });

  it("loads the quickstart example", () => {
    const file = path.join(__dirname, "..", "..", "examples", "quickstart", "keboola.yaml");
    const m = loadManifest(file);
    expect(Object.keys(m.sinks ?? {})).toEqual(["raw", "actions"]);
    expect(fs.readFileSync(file, "utf8")).toMatch(/^# yaml-language-server: \$schema=\.\.\/\.\.\/keboola\.schema\.json/);
  });
});

describe("takeover of configurations", () => {
  it("adoptExisting needs the configId of the configuration to take over", () => {
    const text = GOOD.replace("    name: Users\n", "    name: Users\n    adoptExisting: true\n");
    const [p] = problemsOf(text);
    expect(p).toMatchObject({ ...positionOf(text, "true\n"), path: "configurations.users.adoptExisting" });
    expect(p.message).toMatch(/needs configId/);
    expect(() => parseManifest(text.replace("adoptExisting: true", "adoptExisting: true\n    configId: \"123\""))).not.toThrow();
  });
});

describe("more problems with positions", () => {
  it("an unknown key in a column lists the keys columns take", () => {
    const text = GOOD.replace("{ type: uuid, name: id }", "{ type: uuid, name: id, pth: x }");
    const [p] = problemsOf(text);
    expect(p).toMatchObject({ ...positionOf(text, "pth"), path: "sinks.actions.columns[0].pth" });
    expect(p.message).toMatch(/unknown key "pth": remove it, or use one of: type, name, .*path/);
  });

  it("a secret of a row that does not exist", () => {
    const text = GOOD.replace("    rows:\n", '    secrets: { "rows.3.configuration.#password": pw }\n    rows:\n');
    const [p] = problemsOf(text);
    expect(p).toMatchObject({ ...positionOf(text, '"rows.3'), path: "configurations.users.secrets.rows.3.configuration.#password" });
    expect(p.message).toMatch(/rows\.3 does not exist \(the configuration has 1 row\(s\), counted from 0\)/);
  });

  it("a list where a map goes, in YAML words", () => {
    const text = GOOD.replace("variables:\n  vars:", "variables:\n  - vars:");
    const problems = problemsOf(text);
    expect(problems[0]).toMatchObject({ path: "variables" });
    expect(problems[0].message).toMatch(/write a map of keys to entries/);
  });
});

describe("secrets in the file", () => {
  it("a plain value under a # key is refused where it is, with the fix, in the root and in a row", () => {
    const text = GOOD.replace('configuration: { parameters: { limit: "{{limit}}" } }', 'configuration: { parameters: { limit: "{{limit}}", api: { "#token": s3cr3t-value } } }').replace(
      "      - { rowId: active, name: Active }",
      "      - { rowId: active, name: Active, configuration: { items: [{ '#password': hunter2 }] } }",
    );
    const problems = problemsOf(text);
    expect(problems.map((p) => p.path)).toEqual(["configurations.users.configuration.parameters.api.#token", "configurations.users.rows[0].configuration.items[0].#password"]);
    expect(problems[0]).toMatchObject(positionOf(text, "s3cr3t-value"));
    expect(problems[0].message).toMatch(/a secret in plain text: remove the value and name a stack config key under secrets \(secrets: \{ "configuration\.parameters\.api\.#token": <key> \}/);
    expect(problems[1].message).toContain('"rows.0.configuration.items.0.#password"');
    // The message names the path, never the value.
    for (const p of problems) expect(p.message).not.toMatch(/s3cr3t|hunter2/);
  });

  it("a ciphertext, an empty value and a {{variable}} under # keys are accepted as they are", () => {
    const text = GOOD.replace(
      'configuration: { parameters: { limit: "{{limit}}" } }',
      'configuration: { parameters: { limit: "{{limit}}", "#a": "KBC::ProjectSecure::eJwBQAG", "#b": "", "#c": "{{limit}}" } }',
    );
    const m = parseManifest(text, "m.yaml");
    expect(m.configurations!.users.configuration).toMatchObject({ parameters: { "#a": "KBC::ProjectSecure::eJwBQAG" } });
  });
});
