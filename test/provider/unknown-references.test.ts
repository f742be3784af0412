import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type * as pulumi from "@pulumi/pulumi";
import type * as dynamic from "@pulumi/pulumi/dynamic";
import * as keboola from "../../provider/index";
import { KIND_NAMES, type ResourceKind } from "../../provider/kinds/registry";
import * as hosted from "./hosted";
import type { HostedHandler } from "./hosted";
import type { Props } from "../../provider/lifecycle/types";
import { startHarness, type Harness } from "./harness";
import { mockPreview, previewInputs } from "./preview-program";

// Every check of every kind, with the resources it references declared in the same program and
// not created yet (issue 25). The program is previewed as the engine previews it (preview-program.ts:
// the references are unknown, the facts are what the resource classes derive), its check runs
// against the emulator, and the refusal must come with zero writes, naming the property and the
// fix, in the same words as when the referenced object already exists (the `existing` variant of
// a row references an object made beforehand by a literal id).
//
// The inventory (CHECKS) lists each check of each kind with the references it runs without; a
// check that cannot run while a reference is unknown says why. Each row with a refusal case is a
// test below.

let h: Harness;
let dir: string;
let n = 0;
/** A fresh suffix: the program registry refuses two resources claiming one remote object. */
const next = () => `u${++n}`;

beforeAll(async () => {
  await mockPreview();
  h = await startHarness({ taskDurationMs: 5 });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "unknown-refs-"));
  fs.writeFileSync(path.join(dir, "header.csv"), "id,wrong\n1,a\n");
  fs.writeFileSync(path.join(dir, "quotes.csv"), 'id,name\n1,"open\n');
  fs.writeFileSync(path.join(dir, "wide.csv"), "id,name\n1,a,extra\n");
  // Objects the `existing` variants reference by their literal ids.
  const storage = h.ctx.client().storage;
  await storage.createBucket("default", { name: "existing", stage: "in" });
  const stream = await h.ctx.client().stream();
  await stream.runTask(await stream.createSource("default", { sourceId: "existing-src", type: "http", name: "Existing", description: "" }), "source");
  await stream.runTask(
    await stream.createSink("default", "existing-src", {
      sinkId: "existing-sink",
      type: "table",
      name: "Existing sink",
      description: "",
      allowedSignals: [],
      table: { type: "keboola", tableId: "in.c-existing.events", mapping: { columns: [{ type: "uuid", name: "id" }, { type: "body", name: "body" }] } },
    }),
    "sink",
  );
  await storage.createConfig("default", "keboola.ex-generic-v2", { configurationId: "existing-cfg", name: "Existing", configuration: {} });
  await storage.createConfig("default", "keboola.ex-generic-v2", { configurationId: "existing-disabled", name: "Disabled", configuration: {}, isDisabled: true });
  await storage.createConfig("default", "keboola.flow", {
    configurationId: "existing-flow",
    name: "Existing flow",
    configuration: { phases: [{ id: 1, name: "a", dependsOn: [] }], tasks: [{ id: 1, name: "t", phase: 1, enabled: true, continueOnFailure: false, task: { mode: "run", componentId: "keboola.ex-generic-v2", configId: "existing-cfg" } }] },
  });
  await storage.createConfig("default", "keboola.variables", { configurationId: "existing-vars", name: "Vars", configuration: { variables: [{ name: "limit", type: "int" }] } });
  await storage.createConfig("default", "keboola.scheduler", { configurationId: "existing-cfg-sched", name: "Sched", configuration: {} });
  // A branch no stack manages.
  await storage.waitJob(await storage.createDevBranch({ name: "by-hand", description: "" }), "branch");
  // A table no stack manages, in the existing bucket.
  await storage.waitJob(await storage.createTableDefinition("default", "in.c-existing", { name: "by-hand", primaryKeysNames: [], columns: [{ name: "id", definition: { type: "VARCHAR" } }] }), "table");
}, 60_000);
afterAll(async () => {
  fs.rmSync(dir, { recursive: true, force: true });
  await h?.close();
});

const GENERIC = "keboola.ex-generic-v2";
const extractor = { parameters: { api: { baseUrl: "https://api.example.com/" }, config: { outputBucket: "in.c-x", jobs: [{ endpoint: "users" }] } } };

/** A check's failures and the writes it made. */
async function checked(handler: HostedHandler, inputs: Props, olds: Props = {}): Promise<{ failures: dynamic.CheckFailure[]; writes: number }> {
  const before = h.writes().length;
  const res = await handler.check(h.ctx, olds, inputs);
  return { failures: res.failures ?? [], writes: h.writes().length - before };
}

interface Case {
  kind: ResourceKind;
  /** The check, as the inventory names it. */
  check: string;
  /** The program with the referenced resources declared and not created; answers the checked resource's inputs. */
  preview(): Promise<Props>;
  /** The same resource referencing an existing object by its literal id (when the check reads the referenced object). */
  existing?(): Promise<Props>;
  /** The property of the refusal, and what its reason says. */
  property: string;
  reason: RegExp;
  /**
   * The reason as worded for an object of this program, turned into the wording for an existing
   * one, where a message names its subject (a declared resource) rather than an id.
   */
  asExisting?: (reason: string) => string;
}

const handlers: Record<ResourceKind, HostedHandler> = hosted;

const CASES: Case[] = [
  // ---- Table: bucketId is a Bucket of this program ----
  ...(
    [
      ["data file missing", "missing.csv", "data", /no such file \(looked at .*missing\.csv\): give a CSV path relative to the program/],
      ["header differs from the columns", "header.csv", "data", /header.*\[id, wrong\].*columns.*\[id, name\]/],
      ["unbalanced quotes", "quotes.csv", "data", /is not a valid CSV \(RFC 4180\).*fix the file/],
      ["rows wider than the header", "wide.csv", "data", /is not a valid CSV \(RFC 4180\).*fix the file/],
    ] as const
  ).map(([check, file, property, reason]): Case => ({
    kind: "table",
    check: `data: ${check}`,
    preview: async () => {
      const s = next();
      return previewInputs(() => {
        const b = new keboola.Bucket(`bucket-${s}`, { name: `ref-${s}` });
        return [b, new keboola.Table(`table-${s}`, { bucketId: b.bucketId, name: "countries", columns: ["id", "name"], data: file })];
      }, `table-${s}`, dir);
    },
    existing: async () => {
      const s = next();
      return previewInputs(() => [new keboola.Table(`table-${s}`, { bucketId: "in.c-existing", name: `countries-${s}`, columns: ["id", "name"], data: file })], `table-${s}`, dir);
    },
    property,
    reason,
  })),
  {
    kind: "table",
    check: "primaryKey names a column",
    preview: async () => {
      const s = next();
      return previewInputs(() => {
        const b = new keboola.Bucket(`bucket-${s}`, { name: `ref-${s}` });
        return [b, new keboola.Table(`table-${s}`, { bucketId: b.bucketId, name: "t", columns: ["id"], primaryKey: ["code"] })];
      }, `table-${s}`, dir);
    },
    existing: async () => {
      const s = next();
      return previewInputs(() => [new keboola.Table(`table-${s}`, { bucketId: "in.c-existing", name: `t-${s}`, columns: ["id"], primaryKey: ["code"] })], `table-${s}`, dir);
    },
    property: "primaryKey[0]",
    reason: /"code" is not one of the columns \[id\]: add it to columns or remove it from primaryKey/,
  },
  {
    kind: "table",
    check: "inline rows as wide as the columns",
    preview: async () => {
      const s = next();
      return previewInputs(() => {
        const b = new keboola.Bucket(`bucket-${s}`, { name: `ref-${s}` });
        return [b, new keboola.Table(`table-${s}`, { bucketId: b.bucketId, name: "t", columns: ["id", "name"], data: { rows: [["1"]] } })];
      }, `table-${s}`, dir);
    },
    property: "data.rows[0]",
    reason: /has 1 values, but the table has 2 columns/,
  },
  // ---- Sink: sourceId is a Source of this program; tableId a Table of it ----
  {
    kind: "sink",
    check: "template compiles",
    preview: async () => {
      const s = next();
      return previewInputs(() => {
        const src = new keboola.Source(`src-${s}`, { name: `Events ${s}` });
        return [src, new keboola.Sink(`sink-${s}`, { sourceId: src.sourceId, name: "Raw", tableId: "in.c-x.raw", columns: [{ type: "template", name: "x", template: { content: "Body(" } }] })];
      }, `sink-${s}`);
    },
    existing: async () => {
      const s = next();
      return previewInputs(() => [new keboola.Sink(`sink-${s}`, { sourceId: "existing-src", name: `Raw ${s}`, tableId: "in.c-x.raw", columns: [{ type: "template", name: "x", template: { content: "Body(" } }] })], `sink-${s}`);
    },
    property: "columns[0].template.content",
    reason: /Column "x" template is invalid.*Fix the jsonnet/,
  },
  {
    kind: "sink",
    check: "allowedSignals only on an OTLP source",
    preview: async () => {
      const s = next();
      return previewInputs(() => {
        const src = new keboola.Source(`src-${s}`, { name: "Existing", sourceId: `sig-${s}` });
        return [src, new keboola.Sink(`sink-${s}`, { sourceId: src.sourceId, name: "Logs", tableId: "in.c-x.logs", columns: [{ type: "body", name: "body" }], allowedSignals: ["logs"] })];
      }, `sink-${s}`);
    },
    existing: async () => {
      const s = next();
      return previewInputs(() => [new keboola.Sink(`sink-${s}`, { sourceId: "existing-src", name: `Logs ${s}`, tableId: "in.c-x.logs", columns: [{ type: "body", name: "body" }], allowedSignals: ["logs"] })], `sink-${s}`);
    },
    property: "allowedSignals",
    reason: /is an HTTP source, which has no signals.*remove allowedSignals, or point sourceId at an OTLP source/,
    asExisting: (r) => r.replace(/source "sig-u\d+"/, 'source "existing-src"'),
  },
  {
    kind: "sink",
    check: "mapping matches its table's columns",
    preview: async () => {
      const s = next();
      return previewInputs(() => {
        const src = new keboola.Source(`src-${s}`, { name: `Events ${s}` });
        const b = new keboola.Bucket(`bucket-${s}`, { name: `app-${s}` });
        const t = new keboola.Table(`table-${s}`, { bucketId: b.bucketId, name: "events", columns: ["id", "payload"] });
        return [src, b, t, new keboola.Sink(`sink-${s}`, { sourceId: src.sourceId, name: "Raw", tableId: t.tableId, columns: [{ type: "uuid", name: "id" }, { type: "body", name: "body" }] })];
      }, `sink-${s}`);
    },
    property: "columns",
    reason: /declared by keboola:Table "table-u\d+" in this program[\s\S]*table columns: +\[id, payload\][\s\S]*mapping columns: \[id, body\]/,
  },
  {
    kind: "sink",
    check: "sink id derivable from the name",
    preview: async () => {
      const s = next();
      return previewInputs(() => {
        const src = new keboola.Source(`src-${s}`, { name: `Events ${s}` });
        return [src, new keboola.Sink(`sink-${s}`, { sourceId: src.sourceId, name: "!!!", tableId: "in.c-x.raw", columns: [{ type: "body", name: "body" }] })];
      }, `sink-${s}`);
    },
    existing: async () => {
      const s = next();
      return previewInputs(() => [new keboola.Sink(`sink-${s}`, { sourceId: "existing-src", name: "!!!", tableId: "in.c-x.raw", columns: [{ type: "body", name: "body" }] })], `sink-${s}`);
    },
    property: "name",
    reason: /has no Latin letter or digit to derive the sink id from.*set sinkId/,
  },
  {
    kind: "sink",
    check: "examples hold under the mapping, for the source's type",
    preview: async () => {
      const s = next();
      return previewInputs(() => {
        const src = new keboola.Source(`src-${s}`, { name: `Events ${s}` });
        return [src, new keboola.Sink(`sink-${s}`, { sourceId: src.sourceId, name: "Raw", tableId: "in.c-x.raw", columns: [{ type: "body", name: "body" }], examples: [{ signal: "logs", record: { body: "x" }, expect: {} }] })];
      }, `sink-${s}`);
    },
    existing: async () => {
      const s = next();
      return previewInputs(() => [new keboola.Sink(`sink-${s}`, { sourceId: "existing-src", name: `Raw ${s}`, tableId: "in.c-x.raw", columns: [{ type: "body", name: "body" }], examples: [{ signal: "logs", record: { body: "x" }, expect: {} }] })], `sink-${s}`);
    },
    property: "examples[0]",
    reason: /^the example is an OTLP record \(signal, record\), but the sink's source is an HTTP source: give \{ payload, headers\?, expect \}$/,
  },
  // ---- Settings: their Source or Sink is of this program ----
  {
    kind: "sourceSettings",
    check: "values in range",
    preview: async () => {
      const s = next();
      return previewInputs(() => {
        const src = new keboola.Source(`src-${s}`, { name: `Events ${s}` });
        return [src, new keboola.SourceSettings(`set-${s}`, { sourceId: src.sourceId, stagingUploadTrigger: { count: 0 } })];
      }, `set-${s}`);
    },
    existing: async () => {
      const s = next();
      return previewInputs(() => [new keboola.SourceSettings(`set-${s}`, { sourceId: "existing-src", stagingUploadTrigger: { count: 0 } })], `set-${s}`);
    },
    property: "stagingUploadTrigger.count",
    reason: /must be at least 1 \(range 1 \.\. 100000/,
  },
  {
    kind: "sinkSettings",
    check: "values in range",
    preview: async () => {
      const s = next();
      return previewInputs(() => {
        const src = new keboola.Source(`src-${s}`, { name: `Events ${s}` });
        const snk = new keboola.Sink(`sink-${s}`, { sourceId: src.sourceId, name: "Raw", tableId: "in.c-x.raw", columns: [{ type: "body", name: "body" }] });
        return [src, snk, new keboola.SinkSettings(`set-${s}`, { sourceId: src.sourceId, sinkId: snk.sinkId, stagingUploadTrigger: { count: 0 } })];
      }, `set-${s}`);
    },
    existing: async () => {
      const s = next();
      return previewInputs(() => [new keboola.SinkSettings(`set-${s}`, { sourceId: "existing-src", sinkId: "existing-sink", stagingUploadTrigger: { count: 0 } })], `set-${s}`);
    },
    property: "stagingUploadTrigger.count",
    reason: /must be at least 1 \(range 1 \.\. 100000/,
  },
  // ---- ComponentConfig: its variables are a VariableConfig of this program ----
  {
    kind: "componentConfig",
    check: "placeholders name declared variables",
    preview: async () => {
      const s = next();
      return previewInputs(() => {
        const vars = new keboola.VariableConfig(`vars-${s}`, { name: "Vars", variables: [{ name: "limit", type: "int" }] });
        return [vars, new keboola.ComponentConfig(`cfg-${s}`, { componentId: GENERIC, name: "Users", configuration: { parameters: { ...extractor.parameters, top: "{{ limt }}" } }, variables: vars.binding() })];
      }, `cfg-${s}`);
    },
    existing: async () => {
      const s = next();
      return previewInputs(
        () => [new keboola.ComponentConfig(`cfg-${s}`, { componentId: GENERIC, name: "Users", configuration: { parameters: { ...extractor.parameters, top: "{{ limt }}" } }, variables: { configId: "existing-vars", declared: [{ name: "limit", type: "int" }] } })],
        `cfg-${s}`,
      );
    },
    property: "configuration.parameters.top",
    reason: /limt.*limit/,
  },
  // ---- Flow: its tasks run ComponentConfigs of this program ----
  ...(
    [
      ["phases: a dependency names a phase", [{ name: "a", dependsOn: ["b"] }], "phases[0].dependsOn[0]", /missing phase "b", referenced from "a": name an existing phase/],
      ["phases: no cycle", [{ name: "a", dependsOn: ["b"] }, { name: "b", dependsOn: ["a"] }], "phases[0].dependsOn", /cycle|circular/i],
      ["phases: names unique", [{ name: "a" }, { name: "a" }], "phases[1].name", /phase name "a" is used twice/],
    ] as const
  ).map(([check, shape, property, reason]): Case => {
    const phases = (configId: pulumi.Input<string>) => shape.map((p) => ({ ...p, dependsOn: "dependsOn" in p ? [...p.dependsOn] : [], tasks: [{ componentId: GENERIC, configId }] }));
    return {
      kind: "flow",
      check,
      preview: async () => {
        const s = next();
        return previewInputs(() => {
          const cfg = new keboola.ComponentConfig(`cfg-${s}`, { componentId: GENERIC, name: "Users", configuration: extractor });
          return [cfg, new keboola.Flow(`flow-${s}`, { name: "Nightly", phases: phases(cfg.configId) })];
        }, `flow-${s}`);
      },
      existing: async () => {
        const s = next();
        return previewInputs(() => [new keboola.Flow(`flow-${s}`, { name: "Nightly", phases: phases("existing-cfg") })], `flow-${s}`);
      },
      property,
      reason,
    };
  }),
  // ---- Schedule: its target is a Flow or a ComponentConfig of this program ----
  {
    kind: "schedule",
    check: "target: a flow takes no variable values",
    preview: async () => {
      const s = next();
      return previewInputs(() => {
        const cfg = new keboola.ComponentConfig(`cfg-${s}`, { componentId: GENERIC, name: "Users", configuration: extractor });
        const f = new keboola.Flow(`flow-${s}`, { name: "Nightly", phases: [{ name: "a", tasks: [{ componentId: GENERIC, configId: cfg.configId }] }] });
        return [cfg, f, new keboola.Schedule(`sched-${s}`, { name: "Nightly", cron: "0 3 * * *", target: { ...f.target(), variableValuesData: { limit: "5" } } })];
      }, `sched-${s}`);
    },
    existing: async () => {
      const s = next();
      return previewInputs(() => [new keboola.Schedule(`sched-${s}`, { name: "Nightly", cron: "0 3 * * *", target: { componentId: "keboola.flow", configId: "existing-flow", variableValuesData: { limit: "5" } } })], `sched-${s}`);
    },
    property: "target.variableValuesData",
    reason: /has no variables bound \(no variables_id\), so the values would be ignored/,
    asExisting: (r) => r.replace(/Flow "flow-u\d+" of this program/, 'configuration "existing-flow" of keboola.flow').replace("a Flow takes no variable values", "bind a VariableConfig to it (variables: vars.binding())"),
  },
  {
    kind: "schedule",
    check: "target enabled",
    preview: async () => {
      const s = next();
      return previewInputs(() => {
        const cfg = new keboola.ComponentConfig(`cfg-${s}`, { componentId: GENERIC, name: "Users", configuration: extractor, isDisabled: true });
        return [cfg, new keboola.Schedule(`sched-${s}`, { name: "Nightly", cron: "0 3 * * *", target: { componentId: GENERIC, configId: cfg.configId } })];
      }, `sched-${s}`);
    },
    existing: async () => {
      const s = next();
      return previewInputs(() => [new keboola.Schedule(`sched-${s}`, { name: "Nightly", cron: "0 3 * * *", target: { componentId: GENERIC, configId: "existing-disabled" } })], `sched-${s}`);
    },
    property: "target.configId",
    reason: /is disabled, so its job would fail/,
    asExisting: (r) => r.replace(/ComponentConfig "cfg-u\d+" of this program/, `configuration "existing-disabled" of ${GENERIC}`).replace(/set isDisabled: false on ComponentConfig "cfg-u\d+"/, "enable it (isDisabled: false)"),
  },
  {
    kind: "schedule",
    check: "cron in the Scheduler's dialect",
    preview: async () => {
      const s = next();
      return previewInputs(() => {
        const cfg = new keboola.ComponentConfig(`cfg-${s}`, { componentId: GENERIC, name: "Users", configuration: extractor });
        return [cfg, new keboola.Schedule(`sched-${s}`, { name: "Nightly", cron: "0 25 * * *", target: { componentId: GENERIC, configId: cfg.configId } })];
      }, `sched-${s}`);
    },
    existing: async () => {
      const s = next();
      return previewInputs(() => [new keboola.Schedule(`sched-${s}`, { name: "Nightly", cron: "0 25 * * *", target: { componentId: GENERIC, configId: "existing-cfg" } })], `sched-${s}`);
    },
    property: "cron",
    reason: /hour/,
  },
  // ---- JobRun: it runs a ComponentConfig or a Flow of this program ----
  {
    kind: "jobRun",
    check: "configuration enabled",
    preview: async () => {
      const s = next();
      return previewInputs(() => {
        const cfg = new keboola.ComponentConfig(`cfg-${s}`, { componentId: GENERIC, name: "Users", configuration: extractor, isDisabled: true });
        return [cfg, new keboola.JobRun(`run-${s}`, { componentId: GENERIC, configId: cfg.configId })];
      }, `run-${s}`);
    },
    existing: async () => {
      const s = next();
      return previewInputs(() => [new keboola.JobRun(`run-${s}`, { componentId: GENERIC, configId: "existing-disabled" })], `run-${s}`);
    },
    property: "configId",
    reason: /is disabled, so its job would fail/,
    asExisting: (r) => r.replace(/ComponentConfig "cfg-u\d+" of this program/, `configuration "existing-disabled" of ${GENERIC}`).replace(/set isDisabled: false on ComponentConfig "cfg-u\d+"/, "enable it (isDisabled: false)"),
  },
  {
    kind: "jobRun",
    check: "a flow takes no variable values",
    preview: async () => {
      const s = next();
      return previewInputs(() => {
        const cfg = new keboola.ComponentConfig(`cfg-${s}`, { componentId: GENERIC, name: "Users", configuration: extractor });
        const f = new keboola.Flow(`flow-${s}`, { name: "Nightly", phases: [{ name: "a", tasks: [{ componentId: GENERIC, configId: cfg.configId }] }] });
        return [cfg, f, new keboola.JobRun(`run-${s}`, { componentId: "keboola.flow", configId: f.configId, variableValuesData: { limit: "5" } })];
      }, `run-${s}`);
    },
    existing: async () => {
      const s = next();
      return previewInputs(() => [new keboola.JobRun(`run-${s}`, { componentId: "keboola.flow", configId: "existing-flow", variableValuesData: { limit: "5" } })], `run-${s}`);
    },
    property: "variableValuesData",
    reason: /has no variables bound \(no variables_id\), so the values would be ignored/,
    asExisting: (r) => r.replace(/Flow "flow-u\d+" of this program/, 'configuration "existing-flow" of keboola.flow').replace("a Flow takes no variable values", "bind a VariableConfig to it (variables: vars.binding())"),
  },
];

/** Inputs of a program whose resources are all new (no olds): the common shape of the cases below. */
const program = (name: string, build: (s: string) => pulumi.Resource[]) => async () => {
  const s = next();
  return previewInputs(() => build(s), `${name}-${s}`, dir);
};

// The other checks: each previewed in a program, with the resources it references (if any)
// declared beside it and not created. A check of a deployed resource (`olds`) previews its update.
const MORE: Array<Case & { olds?: () => Promise<Props> }> = [
  // Bucket: no references.
  { kind: "bucket", check: "inputs (name, stage, display name)", preview: program("bucket", (s) => [new keboola.Bucket(`bucket-${s}`, { name: `b-${s}`, displayName: "$$$" })]), property: "displayName", reason: /Only alphanumeric characters dash and underscores are allowed/ },
  { kind: "bucket", check: "branch exists", preview: program("bucket", (s) => [new keboola.Bucket(`bucket-${s}`, { name: `b-${s}`, branchId: "999" })]), property: "branchId", reason: /branch 999 does not exist in the project/ },
  { kind: "bucket", check: "bucket id free or ours", preview: program("bucket", (s) => [new keboola.Bucket(`bucket-${s}`, { name: "existing" })]), property: "name", reason: /bucket "in\.c-existing" already exists and belongs to nobody recorded/ },
  {
    kind: "bucket",
    check: "a replacement keeps no table this stack does not manage (update)",
    olds: async () => ({ name: "existing", stage: "in", branchId: "default", displayName: "Existing" }),
    preview: program("bucket", (s) => [new keboola.Bucket(`bucket-${s}`, { name: `existing-${s}`, displayName: "Existing" })]),
    property: "name",
    reason: /changing name replaces the bucket, and it keeps the display name.*bucket "in\.c-existing" is deleted before the new one is created; it holds 2 table\(s\) this stack does not manage \(in\.c-existing\.events, in\.c-existing\.by-hand\)/,
  },
  // Branch: no references.
  { kind: "branch", check: "inputs (name)", preview: program("branch", (s) => [new keboola.Branch(`branch-${s}`, { name: " " })]), property: "name", reason: /must not be empty: name the branch/ },
  { kind: "branch", check: "name free or ours", preview: program("branch", (s) => [new keboola.Branch(`branch-${s}`, { name: "by-hand" })]), property: "name", reason: /branch name "by-hand" is taken: branch \d+ has it and belongs to nobody recorded.*choose another name, or set adoptExisting: true/ },
  // Stream objects in a Branch of this program (a development branch, not created yet).
  {
    kind: "source",
    check: "not in a development branch of the program",
    preview: program("source", (s) => {
      const b = new keboola.Branch(`branch-${s}`, { name: `dev-${s}` });
      return [b, new keboola.Source(`source-${s}`, { branchId: b.branchId, name: `Dev ${s}` })];
    }),
    property: "branchId",
    reason: /branchId is the development branch of Branch "branch-u\d+" of this program, and the Stream service serves only the default branch .*keep Stream sources, sinks and their settings in the default branch/,
  },
  {
    kind: "sink",
    check: "not in a development branch of the program",
    preview: program("sink", (s) => {
      const b = new keboola.Branch(`branch-${s}`, { name: `dev-${s}` });
      return [b, new keboola.Sink(`sink-${s}`, { branchId: b.branchId, sourceId: "existing-src", name: `Dev ${s}`, tableId: "in.c-x.y", columns: [{ type: "body", name: "body" }] })];
    }),
    property: "branchId",
    reason: /branchId is the development branch of Branch "branch-u\d+" of this program, and the Stream service serves only the default branch/,
  },
  {
    kind: "sourceSettings",
    check: "not in a development branch of the program",
    preview: program("sourceSettings", (s) => {
      const b = new keboola.Branch(`branch-${s}`, { name: `dev-${s}` });
      return [b, new keboola.SourceSettings(`sourceSettings-${s}`, { branchId: b.branchId, sourceId: "existing-src", targetImportTrigger: { count: 10 } })];
    }),
    property: "branchId",
    reason: /branchId is the development branch of Branch "branch-u\d+" of this program, and the Stream service serves only the default branch/,
  },
  // Table: its bucket a Bucket of this program.
  {
    kind: "table",
    check: "branch exists, bucket exists or is declared",
    preview: program("table", (s) => {
      const b = new keboola.Bucket(`bucket-${s}`, { name: `r-${s}`, branchId: "999" });
      return [b, new keboola.Table(`table-${s}`, { branchId: "999", bucketId: b.bucketId, name: "t", columns: ["id"] })];
    }),
    property: "branchId",
    reason: /branch 999 does not exist in the project/,
  },
  {
    kind: "table",
    check: "columns keep their order, none dropped unless allowed (update)",
    olds: async () => ({ bucketId: "in.c-existing", name: "ordered", columns: ["a", "b"], primaryKey: [], branchId: "default" }),
    preview: program("table", (s) => [new keboola.Table(`table-${s}`, { bucketId: "in.c-existing", name: "ordered", columns: ["b", "a"] })]),
    property: "columns",
    reason: /the table's columns are \[a, b\]; the service adds new columns at the end and cannot reorder them/,
  },
  {
    kind: "table",
    check: "a type change or a rename would lose undeclared rows (update)",
    olds: async () => ({ bucketId: "in.c-existing", name: "typed", columns: ["id"], primaryKey: [], branchId: "default", definition: { id: { type: "VARCHAR" } } }),
    preview: program("table", (s) => [new keboola.Table(`table-${s}`, { bucketId: "in.c-existing", name: "typed", columns: ["id"], definition: { id: { type: "INTEGER" } } })]),
    property: "definition",
    reason: /changes the type of column "id" \(VARCHAR → INTEGER\).*Set allowRecreate: true to give them up/,
  },
  // Source: no references.
  { kind: "source", check: "inputs, description with the owner marker fits", preview: program("src", (s) => [new keboola.Source(`src-${s}`, { name: `S ${s}`, description: "x".repeat(4096) })]), property: "description", reason: /with the owner marker keboola-pulumi appends .* it exceeds the service's 4096/ },
  { kind: "source", check: "source id derivable from the name", preview: program("src", (s) => [new keboola.Source(`src-${s}`, { name: "!!!" })]), property: "name", reason: /has no Latin letter or digit to derive the source id from/ },
  { kind: "source", check: "branch exists", preview: program("src", (s) => [new keboola.Source(`src-${s}`, { name: `S ${s}`, branchId: "999" })]), property: "branchId", reason: /branch 999 does not exist in the project/ },
  { kind: "source", check: "source id free or ours, branch has room", preview: program("src", (s) => [new keboola.Source(`src-${s}`, { name: "Existing", sourceId: "existing-src" })]), property: "sourceId", reason: /source "existing-src" already exists in branch default and belongs to nobody recorded/ },
  // Sink: its source a Source of this program.
  {
    kind: "sink",
    check: "inputs, description with the owner marker fits",
    preview: program("sink", (s) => {
      const src = new keboola.Source(`src-${s}`, { name: `E ${s}` });
      return [src, new keboola.Sink(`sink-${s}`, { sourceId: src.sourceId, name: "Raw", description: "x".repeat(4096), tableId: "in.c-x.raw", columns: [{ type: "body", name: "body" }] })];
    }),
    property: "description",
    reason: /it exceeds the service's 4096/,
  },
  {
    kind: "sink",
    check: "branch exists",
    preview: program("sink", (s) => {
      const src = new keboola.Source(`src-${s}`, { name: `E ${s}`, branchId: "999" });
      return [src, new keboola.Sink(`sink-${s}`, { branchId: "999", sourceId: src.sourceId, name: "Raw", tableId: "in.c-x.raw", columns: [{ type: "body", name: "body" }] })];
    }),
    property: "branchId",
    reason: /branch 999 does not exist in the project/,
  },
  {
    kind: "sink",
    check: "sink id free or ours, source has room",
    preview: program("sink", (s) => {
      const src = new keboola.Source(`src-${s}`, { name: `E ${s}` });
      const sinks = Array.from({ length: 101 }, (_, i) => new keboola.Sink(i === 100 ? `sink-${s}` : `sink-${s}-${i}`, { sourceId: src.sourceId, name: `Raw ${i}`, tableId: `in.c-x.raw${i}`, columns: [{ type: "body", name: "body" }] }));
      return [src, ...sinks];
    }),
    property: "name",
    reason: /in source "e-u\d+" \(created in this run\) already has 0 sinks and this program creates 100 more before this one .*the service's limit is 100/,
  },
  {
    kind: "sink",
    check: "mapping matches a table another sink of the program creates",
    preview: program("sink", (s) => {
      const src = new keboola.Source(`src-${s}`, { name: `E ${s}` });
      return [
        src,
        new keboola.Sink(`sink-${s}-first`, { sourceId: src.sourceId, name: "First", tableId: `in.c-x.shared${s}`, columns: [{ type: "uuid", name: "id" }, { type: "body", name: "body" }] }),
        new keboola.Sink(`sink-${s}`, { sourceId: src.sourceId, name: "Second", tableId: `in.c-x.shared${s}`, columns: [{ type: "uuid", name: "id" }] }),
      ];
    }),
    property: "columns",
    reason: /does not exist yet and Sink "sink-u\d+-first" of this program writes it too, with other columns/,
  },
  // ComponentConfig: its variables a VariableConfig of this program.
  {
    kind: "componentConfig",
    check: "inputs, row ids unique, variables keys written by the binding",
    preview: program("cfg", (s) => {
      const vars = new keboola.VariableConfig(`vars-${s}`, { name: "V", variables: [{ name: "limit" }] });
      return [vars, new keboola.ComponentConfig(`cfg-${s}`, { componentId: GENERIC, name: "C", variables: vars.binding(), configuration: { ...extractor, variables_id: "1" } })];
    }),
    property: "configuration.variables_id",
    reason: /is written from the variables input: remove variables_id from the configuration/,
  },
  {
    kind: "componentConfig",
    check: "Generic Extractor pagination and jobs",
    preview: program("cfg", (s) => {
      const vars = new keboola.VariableConfig(`vars-${s}`, { name: "V", variables: [{ name: "limit" }] });
      return [vars, new keboola.ComponentConfig(`cfg-${s}`, { componentId: GENERIC, name: "C", variables: vars.binding(), configuration: { parameters: { ...extractor.parameters, api: { baseUrl: "https://api.example.com/", pagination: { method: "offset" } } } } })];
    }),
    property: "configuration.parameters.api.pagination.limit",
    reason: /required for offset pagination: the page size/,
  },
  {
    kind: "componentConfig",
    check: "branch exists",
    preview: program("cfg", (s) => {
      const vars = new keboola.VariableConfig(`vars-${s}`, { name: "V", branchId: "999", variables: [{ name: "limit" }] });
      return [vars, new keboola.ComponentConfig(`cfg-${s}`, { branchId: "999", componentId: GENERIC, name: "C", variables: vars.binding(), configuration: extractor })];
    }),
    property: "branchId",
    reason: /branch 999 does not exist in the project/,
  },
  {
    kind: "componentConfig",
    check: "component in the stack",
    preview: program("cfg", (s) => {
      const vars = new keboola.VariableConfig(`vars-${s}`, { name: "V", variables: [{ name: "limit" }] });
      return [vars, new keboola.ComponentConfig(`cfg-${s}`, { componentId: "keboola.ex-genric-v2", name: "C", variables: vars.binding() })];
    }),
    property: "componentId",
    reason: /"keboola\.ex-genric-v2" is not a component of this stack.*did you mean "keboola\.ex-generic-v2"\?/,
  },
  {
    kind: "componentConfig",
    check: "configId free or ours",
    preview: program("cfg", (s) => {
      const vars = new keboola.VariableConfig(`vars-${s}`, { name: "V", variables: [{ name: "limit" }] });
      return [vars, new keboola.ComponentConfig(`cfg-${s}`, { componentId: GENERIC, configId: "existing-cfg", name: "C", variables: vars.binding() })];
    }),
    property: "configId",
    reason: /configuration "existing-cfg" of keboola\.ex-generic-v2 already exists in branch default and belongs to nobody recorded/,
  },
  // VariableConfig: no references.
  { kind: "variableConfig", check: "default values of declared variables, typed", preview: program("vars", (s) => [new keboola.VariableConfig(`vars-${s}`, { name: "V", variables: [{ name: "limit", type: "int" }], defaultValues: { limit: "ten" } })]), property: "defaultValues.limit", reason: /is not an integer, but variable "limit" is declared as int/ },
  { kind: "variableConfig", check: "branch exists", preview: program("vars", (s) => [new keboola.VariableConfig(`vars-${s}`, { name: "V", branchId: "999", variables: [] })]), property: "branchId", reason: /branch 999 does not exist in the project/ },
  { kind: "variableConfig", check: "configId free or ours", preview: program("vars", (s) => [new keboola.VariableConfig(`vars-${s}`, { name: "V", configId: "existing-vars", variables: [] })]), property: "configId", reason: /configuration "existing-vars" of keboola\.variables already exists/ },
  // Flow: its tasks run ComponentConfigs of this program.
  {
    kind: "flow",
    check: "branch exists",
    preview: program("flow", (s) => {
      const cfg = new keboola.ComponentConfig(`cfg-${s}`, { componentId: GENERIC, branchId: "999", name: "U", configuration: extractor });
      return [cfg, new keboola.Flow(`flow-${s}`, { branchId: "999", name: "F", phases: [{ name: "a", tasks: [{ componentId: GENERIC, configId: cfg.configId }] }] })];
    }),
    property: "branchId",
    reason: /branch 999 does not exist in the project/,
  },
  {
    kind: "flow",
    check: "configId free or ours",
    preview: program("flow", (s) => {
      const cfg = new keboola.ComponentConfig(`cfg-${s}`, { componentId: GENERIC, name: "U", configuration: extractor });
      return [cfg, new keboola.Flow(`flow-${s}`, { configId: "existing-flow", name: "F", phases: [{ name: "a", tasks: [{ componentId: GENERIC, configId: cfg.configId }] }] })];
    }),
    property: "configId",
    reason: /configuration "existing-flow" of keboola\.flow already exists/,
  },
  // Schedule: its target a ComponentConfig of this program.
  {
    kind: "schedule",
    check: "timezone",
    preview: program("sched", (s) => {
      const cfg = new keboola.ComponentConfig(`cfg-${s}`, { componentId: GENERIC, name: "U", configuration: extractor });
      return [cfg, new keboola.Schedule(`sched-${s}`, { name: "S", cron: "0 3 * * *", timezone: "Europe/Praha", target: { componentId: GENERIC, configId: cfg.configId } })];
    }),
    property: "timezone",
    reason: /Europe\/Praha/,
  },
  {
    kind: "schedule",
    check: "configId free or ours",
    preview: program("sched", (s) => {
      const cfg = new keboola.ComponentConfig(`cfg-${s}`, { componentId: GENERIC, name: "U", configuration: extractor });
      return [cfg, new keboola.Schedule(`sched-${s}`, { configId: "existing-cfg-sched", name: "S", cron: "0 3 * * *", target: { componentId: GENERIC, configId: cfg.configId } })];
    }),
    property: "configId",
    reason: /configuration "existing-cfg-sched" of keboola\.scheduler already exists/,
  },
  {
    kind: "schedule",
    check: "target: values of declared variables, each with a value",
    preview: program("sched", (s) => {
      const vars = new keboola.VariableConfig(`vars-${s}`, { name: "V", variables: [{ name: "limit" }, { name: "since" }] });
      const cfg = new keboola.ComponentConfig(`cfg-${s}`, { componentId: GENERIC, name: "U", configuration: extractor, variables: vars.binding() });
      return [vars, cfg, new keboola.Schedule(`sched-${s}`, { name: "S", cron: "0 3 * * *", target: { componentId: GENERIC, configId: cfg.configId, variableValuesData: { limit: "5" } } })];
    }),
    property: "target.variableValuesData",
    reason: /has no value for variable "since", which VariableConfig "vars-u\d+" of this program declares, so the job would fail/,
  },
  // JobRun: it runs a ComponentConfig of this program.
  {
    kind: "jobRun",
    check: "values of declared variables, each with a value",
    preview: program("run", (s) => {
      const vars = new keboola.VariableConfig(`vars-${s}`, { name: "V", variables: [{ name: "limit" }] });
      const cfg = new keboola.ComponentConfig(`cfg-${s}`, { componentId: GENERIC, name: "U", configuration: extractor, variables: vars.binding() });
      return [vars, cfg, new keboola.JobRun(`run-${s}`, { componentId: GENERIC, configId: cfg.configId, variableValuesData: { limt: "5" } })];
    }),
    property: "variableValuesData.limt",
    reason: /"limt" is not a declared variable/,
  },
];

/**
 * The inventory: every check of every kind, and whether it runs while each of the resource's
 * references is unknown (a resource of the same program, not created yet). `runs: true` means it
 * runs on what is known and on what the program declares about the reference; a string says why
 * it cannot (or need not) run then.
 */
const CHECKS: Record<ResourceKind, { references: string[]; checks: Record<string, true | string> }> = {
  bucket: {
    references: [],
    checks: { "inputs (name, stage, display name)": true, "branch exists": true, "bucket id free or ours": true, "a replacement keeps no table this stack does not manage (update)": true },
  },
  table: {
    references: ["bucketId (a Bucket)"],
    checks: {
      "primaryKey names a column": true,
      "inline rows as wide as the columns": true,
      "data: data file missing": true,
      "data: header differs from the columns": true,
      "data: unbalanced quotes": true,
      "data: rows wider than the header": true,
      "columns keep their order, none dropped unless allowed (update)": true,
      "a type change or a rename would lose undeclared rows (update)": true,
      "branch exists, bucket exists or is declared": true,
      "table id free or ours": "runs with the id the program says its Bucket will have; a Bucket not created yet holds no table, so nothing is refused",
    },
  },
  source: {
    references: ["branchId (a Branch)"],
    checks: {
      "inputs, description with the owner marker fits": true,
      "source id derivable from the name": true,
      "branch exists": true,
      "not in a development branch of the program": true,
      "source id free or ours, branch has room": true,
    },
  },
  sink: {
    references: ["sourceId (a Source)", "tableId (a Table)"],
    checks: {
      "inputs, description with the owner marker fits": true,
      "template compiles": true,
      "sink id derivable from the name": true,
      "allowedSignals only on an OTLP source": true,
      "branch exists": true,
      "not in a development branch of the program": true,
      "sink id free or ours, source has room": true,
      "mapping matches its table's columns": true,
      "mapping matches a table another sink of the program creates": true,
      "examples hold under the mapping, for the source's type": true,
    },
  },
  sourceSettings: {
    references: ["sourceId (a Source)"],
    checks: { "values in range": true, "not in a development branch of the program": true, "the source exists": "a Source of this program is created before its settings: nothing to refuse" },
  },
  sinkSettings: {
    references: ["sourceId (a Source)", "sinkId (a Sink)"],
    checks: { "values in range": true, "the sink exists": "a Sink of this program is created before its settings: nothing to refuse" },
  },
  componentConfig: {
    references: ["variables (a VariableConfig's binding)"],
    checks: {
      "inputs, row ids unique, variables keys written by the binding": true,
      "Generic Extractor pagination and jobs": true,
      "placeholders name declared variables": true,
      "branch exists": true,
      "component in the stack": true,
      "configId free or ours": true,
    },
  },
  variableConfig: {
    references: [],
    checks: { "default values of declared variables, typed": true, "branch exists": true, "configId free or ours": true },
  },
  flow: {
    references: ["phases[].tasks[].configId (a ComponentConfig)"],
    checks: {
      "phases: a dependency names a phase": true,
      "phases: no cycle": true,
      "phases: names unique": true,
      "branch exists": true,
      "configId free or ours": true,
      "each task's configuration exists": "a ComponentConfig of this program is created before the flow: nothing to refuse",
    },
  },
  schedule: {
    references: ["target (a Flow's target(), or a ComponentConfig's configId)"],
    checks: {
      "cron in the Scheduler's dialect": true,
      "timezone": true,
      "configId free or ours": true,
      "target enabled": true,
      "target: a flow takes no variable values": true,
      "target: values of declared variables, each with a value": true,
      "not in a development-branch stack": "needs no reference: stack config keboola:branch alone (test/provider/stack-branch.test.ts)",
    },
  },
  jobRun: {
    references: ["configId (a ComponentConfig or a Flow)"],
    checks: { "configuration enabled": true, "a flow takes no variable values": true, "values of declared variables, each with a value": true },
  },
  branch: {
    references: [],
    checks: {
      "inputs (name)": true,
      "name free or ours": true,
      "the token may create branches": "needs no reference: the token alone (test/provider/branch.test.ts, with a token that is not a master token)",
    },
  },
};

describe("checks with the referenced resources declared in the same program and not created yet", () => {
  it("the inventory covers every kind, and every case is a check of it that runs", () => {
    expect(Object.keys(CHECKS).sort()).toEqual([...KIND_NAMES].sort());
    for (const c of [...CASES, ...MORE]) expect(CHECKS[c.kind].checks[c.check], `${c.kind}: ${c.check}`).toBe(true);
  });

  it("every check the inventory says runs has a case below", () => {
    const covered = new Set([...CASES, ...MORE].map((c) => `${c.kind}: ${c.check}`));
    const missing = KIND_NAMES.flatMap((k) => Object.entries(CHECKS[k].checks).flatMap(([check, runs]) => (runs === true && !covered.has(`${k}: ${check}`) ? [`${k}: ${check}`] : [])));
    expect(missing).toEqual([]);
  });

  for (const c of [...CASES, ...MORE] as Array<Case & { olds?: () => Promise<Props> }>) {
    it(`${c.kind}: ${c.check}: refused at preview, zero writes${c.existing ? ", in the words used for an existing object" : ""}`, async () => {
      const handler = handlers[c.kind];
      const got = await checked(handler, await c.preview(), c.olds ? await c.olds() : {});
      expect(got.writes).toBe(0);
      const failure = got.failures.find((f) => f.property === c.property);
      expect(failure, JSON.stringify(got.failures)).toBeDefined();
      expect(failure!.reason).toMatch(c.reason);
      if (c.existing) {
        const known = await checked(handler, await c.existing());
        const same = known.failures.find((f) => f.property === c.property);
        expect(same, JSON.stringify(known.failures)).toBeDefined();
        expect((c.asExisting ?? ((r: string) => r))(failure!.reason)).toBe(same!.reason);
      }
    });
  }
});

describe("facts the program gives about references it declares", () => {
  it("a Table gets the id its Bucket will have; a Sink its Source's and its Table's", async () => {
    const s = next();
    const table = await previewInputs(() => {
      const b = new keboola.Bucket(`bucket-${s}`, { name: `app-${s}` });
      return [b, new keboola.Table(`table-${s}`, { bucketId: b.bucketId, name: "events", columns: ["id"] })];
    }, `table-${s}`);
    expect(table.bucketId).toBe("04da6b54-80e4-46f7-96ec-b56ff0331ba9");
    expect(table.__program).toMatchObject({ declared: true, bucketId: `in.c-app-${s}` });
    const t = next();
    const sinkInputs = await previewInputs(() => {
      const src = new keboola.Source(`src-${t}`, { name: `Events ${t}` });
      const b = new keboola.Bucket(`bucket-${t}`, { name: `app-${t}` });
      const tbl = new keboola.Table(`table-${t}`, { bucketId: b.bucketId, name: "events", columns: ["id"] });
      return [src, b, tbl, new keboola.Sink(`sink-${t}`, { sourceId: src.sourceId, name: "Raw", tableId: tbl.tableId, columns: [{ type: "uuid", name: "id" }] })];
    }, `sink-${t}`);
    expect(sinkInputs.__program).toMatchObject({ declared: true, sourceId: `events-${t}`, declaredTable: { resource: `table-${t}`, tableId: `in.c-app-${t}.events` } });
  });
});
