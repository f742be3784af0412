// Issue 25 through the real CLI: every input that replaces an object, changed on a deployed stack,
// either converges in one `up` (the replacement made beside the old object, or after it where the
// service keeps a value unique: a bucket renamed with its display name kept) or is refused at
// preview with zero writes (where the replacement would lose what the program does not declare,
// or cannot exist); none passes preview and fails at `up`. The replacing inputs of each kind come
// from its schema's markers (replaces()), listed in REPLACING and checked against them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startEmulator, type Emulator } from "../../emulator/server";
import { describeResult } from "./helpers/pulumi";
import { makeRootProject, type RootProject } from "../../scripts/lib/root-project";
import { call, pollUntil } from "../emulator/helpers";
import { KINDS, KIND_NAMES, type ResourceKind } from "../../provider/kinds/registry";
import { definitionOf } from "../../provider/lifecycle/define";
import "../../provider/index";

const TOKEN = "e2e-replacements-token-8a2f";
const EXTRACTOR = `{ parameters: { api: { baseUrl: "https://api.example.com/" }, config: { outputBucket: in.c-users, jobs: [{ endpoint: users, params: { limit: "{{limit}}" } }] } } }`;

/** What changes in each round, per kind and replacing input: converge, or a refusal (its text). */
const REPLACING: Record<ResourceKind, Record<string, string>> = {
  bucket: { name: "converges, deleting the old bucket first (its display name is kept)", stage: "converges, its table replaced with it (allowRecreate)", branchId: "converges into a dev branch, its table with it" },
  table: { name: "refused while its rows are undeclared; converges with allowRecreate", bucketId: "follows its bucket", branchId: "follows its bucket" },
  source: { sourceId: "converges, its sink and settings replaced with it", branchId: "refused: the Stream service serves only the default branch" },
  sink: { sinkId: "converges", sourceId: "follows its source", branchId: "follows its source" },
  sourceSettings: { sourceId: "follows its source", branchId: "follows its source" },
  sinkSettings: { sinkId: "follows its sink", sourceId: "follows its source", branchId: "follows its source" },
  componentConfig: { configId: "converges, its flow task and job following", componentId: "converges (lone)", branchId: "converges into a dev branch (lone)" },
  variableConfig: { configId: "converges, its binding following", branchId: "converges into a dev branch (solo)" },
  jobRun: { variableValuesData: "runs again", configId: "runs again (its configuration replaced)" },
  flow: { configId: "converges, its schedule's target following", branchId: "converges into a dev branch (solo, with its task's configuration)" },
  schedule: { configId: "converges" },
  branch: {},
};

const manifestText = (o: { bucket: string; stage?: string; source: string; sink: string; vars: string; users: string; lone: string; loneComponent?: string; loneBranch?: string; limit: string; flow: string; schedule: string; loadedName: string; allowRecreate?: boolean; plainStage?: string; sourceBranch?: string; varsBranch?: string; flowBranch?: string; bucketBranch?: string }) => `buckets:
  ref: { name: ${o.bucket}, displayName: Reference${o.stage ? `, stage: ${o.stage}` : ""} }
  plain: { name: plain${o.plainStage ? `, stage: ${o.plainStage}` : ""}${o.bucketBranch ? `, branchId: "${o.bucketBranch}"` : ""} }
tables:
  countries: { bucket: ref, name: countries, columns: [id, name], data: { rows: [["1", "a"]] } }
  loaded: { bucket: plain, name: ${o.loadedName}, columns: [id]${o.allowRecreate ? ", allowRecreate: true" : ""} }
sources:
  events: { name: Events, sourceId: ${o.source}${o.sourceBranch ? `, branchId: "${o.sourceBranch}"` : ""}, settings: { stagingUploadTrigger: { count: 5000 } } }
sinks:
  raw: { source: events, name: Raw, sinkId: ${o.sink}, tableId: in.c-app.raw, columns: [{ type: uuid, name: id }, { type: body, name: body }], settings: { syncWait: false } }
variables:
  vars: { name: Vars, configId: ${o.vars}, variables: [{ name: limit, type: int }], defaultValues: { limit: "5" } }
  solovars: { name: Solo, configId: solovars, variables: [{ name: x }]${o.varsBranch ? `, branchId: "${o.varsBranch}"` : ""} }
configurations:
  users: { componentId: keboola.ex-generic-v2, configId: ${o.users}, name: Users, variables: vars, configuration: ${EXTRACTOR} }
  lone: { componentId: ${o.loneComponent ?? "keboola.ex-generic-v2"}, configId: ${o.lone}, name: Lone${o.loneBranch ? `, branchId: "${o.loneBranch}"` : ""} }
jobs:
  once: { configuration: users, variableValuesData: { limit: "${o.limit}" } }
flows:
  nightly: { configId: ${o.flow}, name: Nightly, phases: [{ name: extract, tasks: [{ configuration: users }] }] }
  solo: { configId: solo, name: Solo${o.flowBranch ? `, branchId: "${o.flowBranch}"` : ""}, phases: [{ name: one, tasks: [{ configuration: lone }] }] }
schedules:
  nightly: { configId: ${o.schedule}, flow: nightly, cron: "0 3 * * *" }
`;

const BASE = { bucket: "ref", source: "events", sink: "raw", vars: "vars", users: "users", lone: "lone", limit: "3", flow: "nightly", schedule: "nightly-schedule", loadedName: "loaded" };

let emu: Emulator;
let root: RootProject;
let manifest: string;
let dev: string;

async function devBranch(): Promise<string> {
  const job = await call(emu.url, "POST", "/v2/storage/dev-branches", { token: TOKEN, json: { name: "replacements" } });
  const done = await pollUntil(() => call(emu.url, "GET", `/v2/storage/jobs/${job.body.id}`, { token: TOKEN }), (r) => r.body.status === "success", 10_000);
  return String(done.body.results.id);
}

beforeAll(async () => {
  emu = await startEmulator({ token: TOKEN, taskDurationMs: 10 });
  manifest = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "replacements-e2e-")), "keboola.yaml");
  root = await makeRootProject({ prefix: "replacements", host: emu.url, token: TOKEN, manifest });
}, 240_000);

afterAll(async () => {
  if (manifest) fs.rmSync(path.dirname(manifest), { recursive: true, force: true });
  await root?.cleanup();
  await emu?.close();
});

const live = () => Object.values(emu.state.storage.configs).filter((c) => !c.isDeleted);
const liveIds = (componentId: string, branchId = 101) => live().filter((c) => c.componentId === componentId && c.branchId === branchId).map((c) => c.id).sort();

async function converges(text: string): Promise<void> {
  fs.writeFileSync(manifest, text);
  const preview = await root.pulumi(["preview"], { timeoutMs: 300_000 });
  expect(preview.code, describeResult(preview)).toBe(0);
  const up = await root.pulumi(["up", "--yes", "--skip-preview"], { timeoutMs: 600_000 });
  expect(up.code, describeResult(up)).toBe(0);
  const again = await root.pulumi(["preview", "--expect-no-changes"], { timeoutMs: 300_000 });
  expect(again.code, describeResult(again)).toBe(0);
}

async function refused(text: string, expected: RegExp): Promise<void> {
  fs.writeFileSync(manifest, text);
  emu.clearRequests();
  const res = await root.pulumi(["preview"], { timeoutMs: 300_000 });
  expect(res.code, describeResult(res)).not.toBe(0);
  expect(res.stdout + res.stderr).toMatch(expected);
  expect(emu.writes()).toEqual([]);
}

describe("e2e: every replacing input changed on a deployed stack converges in one up, or is refused at preview", () => {
  it("lists exactly the inputs the schema markers say replace", async () => {
    for (const kind of KIND_NAMES) {
      const { lifecycle } = definitionOf(KINDS[kind].type)!;
      const marked = [...lifecycle.replace, ...lifecycle.replaceWhenSet];
      for (const field of marked) expect(REPLACING[kind], `${kind}.${field}`).toHaveProperty(field);
    }
  });

  it("deploys the project, and loads rows by hand into a table that does not declare its data", async () => {
    dev = await devBranch();
    await converges(manifestText(BASE));
    // Rows a writer loaded: the Table resource declares no data, so they are the project's own.
    const table = emu.state.storage.tables["101/in.c-plain.loaded"];
    expect(table).toBeDefined();
    table!.rows.push(["1"], ["2"]);
  }, 900_000);

  it("refuses at preview, writing nothing: a table renamed with undeclared rows; a source moved into a dev branch; a bucket replaced over a table this stack does not manage", async () => {
    await refused(
      manifestText({ ...BASE, loadedName: "loaded2" }),
      /keboola:Table resource 'loaded': property name .*changing name \("loaded" → "loaded2"\) replaces the table: \\?"in\.c-plain\.loaded\\?" is dropped with its 2 row\(s\), which this table does not declare\. Set allowRecreate: true to give them up, declare data so it is loaded into the new table, or keep the name/,
    );
    await refused(manifestText({ ...BASE, sourceBranch: dev }), new RegExp(`keboola:Source resource 'events': property branchId .*branch ${dev} is a development branch, and the Stream service serves only the default branch`));
    await call(emu.url, "POST", "/v2/storage/buckets/in.c-ref/tables-definition", { token: TOKEN, json: { name: "by-hand", columns: [{ name: "id", definition: { type: "VARCHAR" } }] } });
    await pollUntil(() => call(emu.url, "GET", "/v2/storage/tables/in.c-ref.by-hand", { token: TOKEN }), (r) => r.status === 200, 10_000);
    await refused(
      manifestText({ ...BASE, bucket: "ref2" }),
      /keboola:Bucket resource 'ref': property name .*changing name replaces the bucket, and it keeps the display name, which the service keeps unique in the stage, so bucket \\?"in\.c-ref\\?" is deleted before the new one is created; it holds 1 table\(s\) this stack does not manage \(in\.c-ref\.by-hand\)/,
    );
    expect((await call(emu.url, "DELETE", "/v2/storage/tables/in.c-ref.by-hand", { token: TOKEN })).status).toBe(204);
  }, 900_000);

  it("converges in one up when ids change: a bucket renamed keeping its display name, a source, a sink, variables, configurations, a flow, a schedule, a job's values", async () => {
    await converges(manifestText({ ...BASE, bucket: "ref2", source: "events2", sink: "raw2", vars: "vars2", users: "users2", lone: "lone2", limit: "4", flow: "nightly2", schedule: "nightly-schedule2", loneComponent: "keboola.ex-http" }));
    const buckets = Object.keys(emu.state.storage.buckets).filter((k) => k.startsWith("101/"));
    expect(buckets).toContain("101/in.c-ref2");
    expect(buckets).not.toContain("101/in.c-ref");
    expect(emu.state.storage.buckets["101/in.c-ref2"]!.displayName).toBe("Reference");
    expect(emu.state.storage.tables["101/in.c-ref2.countries"]!.rows).toEqual([["1", "a"]]);
    const sources = Object.values(emu.state.stream.sources).filter((s) => !s.deleted).map((s) => s.sourceId);
    expect(sources).toEqual(["events2"]);
    const sinks = Object.values(emu.state.stream.sinks).filter((s) => !s.deleted).map((s) => `${s.sourceId}/${s.sinkId}`);
    expect(sinks).toEqual(["events2/raw2"]);
    expect(liveIds("keboola.variables")).toEqual(["solovars", "vars2"]);
    expect(liveIds("keboola.ex-generic-v2")).toEqual(["users2"]);
    expect(liveIds("keboola.ex-http")).toEqual(["lone2"]);
    expect(liveIds("keboola.flow")).toEqual(["nightly2", "solo"]);
    expect(liveIds("keboola.scheduler")).toEqual(["nightly-schedule2"]);
    const schedules = Object.values(emu.state.scheduler.schedules);
    expect(schedules.map((s) => s.configurationId)).toEqual(["nightly-schedule2"]);
  }, 900_000);

  it("converges when a table is renamed giving up its rows, a bucket changes stage, and a bucket, a configuration, variables and a flow move into a dev branch", async () => {
    const moved = { ...BASE, bucket: "ref2", source: "events2", sink: "raw2", vars: "vars2", users: "users2", lone: "lone2", limit: "4", flow: "nightly2", schedule: "nightly-schedule2", loneComponent: "keboola.ex-http" };
    await converges(manifestText({ ...moved, loadedName: "loaded2", allowRecreate: true, plainStage: "out" }));
    expect(Object.keys(emu.state.storage.tables).filter((k) => k.includes("plain"))).toEqual(["101/out.c-plain.loaded2"]);
    await converges(manifestText({ ...moved, loadedName: "loaded2", allowRecreate: true, plainStage: "out", bucketBranch: dev, loneBranch: dev, varsBranch: dev, flowBranch: dev }));
    expect(Object.keys(emu.state.storage.tables).filter((k) => k.includes("plain"))).toEqual([`${dev}/out.c-plain.loaded2`]);
    expect(liveIds("keboola.ex-http", Number(dev))).toEqual(["lone2"]);
    expect(liveIds("keboola.ex-http")).toEqual([]);
    expect(liveIds("keboola.variables", Number(dev))).toContain("solovars");
    expect(liveIds("keboola.variables")).not.toContain("solovars");
    expect(liveIds("keboola.flow", Number(dev))).toContain("solo");
    expect(liveIds("keboola.flow")).not.toContain("solo");
  }, 900_000);
});
