#!/usr/bin/env node
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startEmulator, type Emulator } from "../emulator/server";
import { describeResult, makePulumiWorkspace, type PulumiWorkspace, type RunResult } from "./lib/pulumi-workspace";
import { packAndInstall } from "./lib/packed";
import { sampleCpu } from "./lib/cpu-sample";
import { benchData } from "./lib/bench-data";
import { directFleet } from "./lib/direct-fleet";
import { formatStateBytes, stateBytes as stateBytesOf } from "./lib/state-bytes";
import { command, runMain, UsageError } from "../provider/cli/command";

// The fleet benchmark (`npm run bench`): a fleet of sources x sinks, each sink with SinkSettings,
// deployed with the real Pulumi CLI on the emulator whose tasks take D ms, installed from the
// packed package exactly as a user installs it. Prints the time of up, a no-op preview, refresh
// and destroy, and their ratio to a bound measured in the same run: an empty program's `up` plus
// the three tasks on the critical path (source, sink, settings); destroy also against an empty
// program's `up` plus 2 x D (issue 16's bound for it: the service deletes a source's sinks and
// settings with it, so destroy waits for one task per source, all in parallel). Also the requests
// per created resource, the writes of the no-op preview and of destroy, and the size of the
// serialized provider in state.
//
//   node dist/scripts/bench-fleet.js [options]   (--help lists them: benchFleetCommand below)
//
// By default the curve (issue 28): 10 sinks per source and 10, 24, 48 and 95 sources (210, 504,
// 1008 and 1995 resources), D = 1000 ms, --parallel 32, each size also against a direct script
// making the same writes with the provider's API client at the same parallelism
// (scripts/lib/direct-fleet.ts), in one run; then a table of the growth.
//
// Then the data case (scripts/lib/bench-data.ts): a generated CSV of --data-mb MB (0: skipped)
// loaded into a Table by `pulumi up`, against a plain presigned PUT plus the table's job; with
// --data-only, only that.
//
// Also prints the CPU seconds each kind of process spent during `up` (Linux). With --cpu-prof, the
// Node processes of `up` (program, dynamic provider) write V8 CPU profiles into DIR; with
// --pulumi-profile, the engine of `up` writes its Go profiles to PREFIX.<pid>.{cpu,mem,trace}
// (Pulumi's own --profiling flag). BENCH_DUMP_STATE=FILE writes the exported state after refresh.
// --skip-checkpoints (or BENCH_SKIP_CHECKPOINTS=1) runs up and destroy with PULUMI_SKIP_CHECKPOINTS=true:
// the file backend then writes the state once at the end instead of after every step (see README,
// "Large stacks").
// --plugin deploys the same fleet as a Pulumi YAML program through the provider plugin
// (pulumi-resource-keboola of the installed package, found on PATH as a user's project finds it
// in node_modules/.bin), its bound an empty YAML program's `up`.

interface Options {
  /** Through the provider plugin, as a YAML program. */
  plugin?: boolean;
  cpuProf?: string;
  pulumiProfile?: string;
  sources: number;
  sinks: number;
  taskMs: number;
  parallel?: number;
  /** PULUMI_SKIP_CHECKPOINTS=true for up and destroy (README, "Large stacks"). */
  skipCheckpoints?: boolean;
}

/** A count option's value: a whole number of at least `min`. */
function count(name: string, raw: string, min = 1): number {
  const n = Number(raw);
  if (!(Number.isInteger(n) && n >= min)) throw new UsageError(`--${name} must be a whole number of at least ${min}, got "${raw}"`);
  return n;
}

export const benchFleetCommand = command({
  name: "bench-fleet",
  summary: "the fleet benchmark: a fleet of sources x sinks deployed with the real Pulumi CLI on the emulator, against its bounds",
  usage: [
    "node dist/scripts/bench-fleet.js [--sizes 10,24,48,95] [--task-ms 1000] [--parallel 32] [--skip-checkpoints] [--plugin]",
    "                                 [--sources 10 --sinks 10 ...one size] [--cpu-prof DIR] [--pulumi-profile PREFIX]",
    "                                 [--data-mb 1024] [--data-only]",
  ],
  description: "`npm run bench` runs it after vitest's benchmarks. BENCH_DUMP_STATE=FILE writes the exported state after refresh.",
  options: {
    sizes: { type: "string", default: "10,24,48,95", value: "<n,n,...>", help: "the sources of each size of the curve (10 sinks each unless --sinks)" },
    sources: { type: "string", value: "<n>", help: "one size only: this many sources" },
    sinks: { type: "string", default: "10", value: "<n>", help: "sinks per source (default 10)" },
    "task-ms": { type: "string", value: "<ms>", help: "how long the emulator's tasks take, D (default 1000)" },
    parallel: { type: "string", value: "<n>", help: "pulumi up --parallel (default 32; with --task-ms alone, Pulumi's default)" },
    "skip-checkpoints": { type: "boolean", help: "up and destroy with PULUMI_SKIP_CHECKPOINTS=true (or BENCH_SKIP_CHECKPOINTS=1)" },
    plugin: { type: "boolean", help: "the same fleet as a Pulumi YAML program through the provider plugin" },
    "cpu-prof": { type: "string", value: "<dir>", help: "the Node processes of up write V8 CPU profiles into <dir>" },
    "pulumi-profile": { type: "string", value: "<prefix>", help: "the engine of up writes its Go profiles to <prefix>.<pid>.{cpu,mem,trace}" },
    "data-mb": { type: "string", default: "1024", value: "<MB>", help: "the data case: a generated CSV of this size loaded into a Table (0: skipped)" },
    "data-only": { type: "boolean", help: "only the data case" },
  },
  async run({ values }) {
    const common = {
      taskMs: values["task-ms"] === undefined ? 1000 : count("task-ms", values["task-ms"], 0),
      // With --task-ms and no --parallel, up runs at Pulumi's own parallelism; the curve's default is 32.
      parallel: values.parallel !== undefined ? count("parallel", values.parallel) : values["task-ms"] !== undefined ? undefined : 32,
      skipCheckpoints: values["skip-checkpoints"] || !!process.env.BENCH_SKIP_CHECKPOINTS,
      plugin: values.plugin,
      cpuProf: values["cpu-prof"],
      pulumiProfile: values["pulumi-profile"],
    };
    const sinks = count("sinks", values.sinks);
    const sizes = values.sources !== undefined ? [count("sources", values.sources)] : values.sizes.split(",").map((n) => count("sizes", n));
    const dataMb = count("data-mb", values["data-mb"], 0);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "keboola-bench-"));
    try {
      const nodeModules = packAndInstall(dir);
      if (!values["data-only"]) {
        const options: Options[] = sizes.map((sources) => ({ ...common, sources, sinks }));
        const curve: Measured[] = [];
        for (const o of options) curve.push(await run(o, nodeModules));
        if (curve.length > 1) printCurve(curve, options[0]);
      }
      if (dataMb > 0) await benchData(nodeModules, dataMb);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    return 0;
  },
});

/** What one size measured, for the curve. */
interface Measured {
  resources: number;
  up: number;
  noChangeUp: number;
  preview: number;
  destroy: number;
  direct: number;
  engineCpu: number;
  bytesPerResource: number;
  /** The largest resident memory of the program's and the provider's processes during up. */
  programRss: number;
  providerRss: number;
}

const TOKEN = "bench-fleet-token-0123456789";

function program(o: Options): string {
  return `"use strict";
const keboola = require("keboola-pulumi");
for (let i = 0; i < ${o.sources}; i++) {
  const src = new keboola.Source("src-" + i, { name: "Bench " + i });
  for (let j = 0; j < ${o.sinks}; j++) {
    const snk = new keboola.Sink("sink-" + i + "-" + j, {
      sourceId: src.sourceId, name: "Out " + j, tableId: "in.c-bench.t" + i + "_" + j,
      columns: [{ type: "uuid", name: "id" }, { type: "datetime", name: "at" }, { type: "body", name: "body" }],
    });
    new keboola.SinkSettings("settings-" + i + "-" + j, { sourceId: src.sourceId, sinkId: snk.sinkId, stagingUploadTrigger: { count: 1000 } });
  }
}
`;
}

/** The same fleet as a Pulumi YAML program of the plugin's resources. */
function yamlProgram(o: Options): string {
  const lines = ["resources:"];
  for (let i = 0; i < o.sources; i++) {
    lines.push(`  src-${i}:`, "    type: keboola:index:Source", "    properties:", `      name: Bench ${i}`);
    for (let j = 0; j < o.sinks; j++) {
      lines.push(
        `  sink-${i}-${j}:`,
        "    type: keboola:index:Sink",
        "    properties:",
        `      sourceId: \${src-${i}.sourceId}`,
        `      name: Out ${j}`,
        `      tableId: in.c-bench.t${i}_${j}`,
        "      columns: [{ type: uuid, name: id }, { type: datetime, name: at }, { type: body, name: body }]",
        // As docs/plugin.md says: what the service deletes with its source, deleted with it.
        `    options: { deletedWith: "\${src-${i}}" }`,
        `  settings-${i}-${j}:`,
        "    type: keboola:index:SinkSettings",
        "    properties:",
        `      sourceId: \${src-${i}.sourceId}`,
        `      sinkId: \${sink-${i}-${j}.sinkId}`,
        "      stagingUploadTrigger: { count: 1000 }",
        `    options: { deletedWith: "\${src-${i}}" }`,
      );
    }
  }
  return `${lines.join("\n")}\n`;
}

function must(what: string, res: RunResult): RunResult {
  if (res.code !== 0) throw new Error(`${what} failed:\n${describeResult(res)}`);
  return res;
}

async function timed(fn: () => Promise<RunResult>, what: string): Promise<number> {
  const started = Date.now();
  must(what, await fn());
  return (Date.now() - started) / 1000;
}

/** A workspace whose node_modules is the installed one. */
async function installedWorkspace(nodeModules: string, project: string): Promise<PulumiWorkspace> {
  const ws = await makePulumiWorkspace({ project });
  ws.writeProgram({ "index.js": "" });
  fs.rmSync(path.join(ws.programDir, "node_modules"), { recursive: true, force: true });
  fs.symlinkSync(nodeModules, path.join(ws.programDir, "node_modules"), "dir");
  return ws;
}

/** A workspace for a YAML program, with the installed package's plugin first on PATH (node_modules/.bin). */
async function pluginWorkspace(nodeModules: string, project: string): Promise<PulumiWorkspace> {
  return makePulumiWorkspace({ project, plugin: { dir: path.join(nodeModules, ".bin") } });
}

async function run(o: Options, nodeModules: string): Promise<Measured> {
  const emu: Emulator = await startEmulator({ token: TOKEN, taskDurationMs: o.taskMs });
  const extra = o.parallel ? ["--parallel", String(o.parallel)] : [];
  const resources = o.sources * (1 + 2 * o.sinks);
  const label = `${resources} resources, D=${o.taskMs} ms, ${o.parallel ? `--parallel ${o.parallel}` : "default parallelism"}${o.plugin ? ", through the provider plugin (YAML)" : ""}`;
  const wss: PulumiWorkspace[] = [];
  try {
    const setUp = async (name: string, code: string) => {
      const ws = o.plugin ? await pluginWorkspace(nodeModules, name) : await installedWorkspace(nodeModules, name);
      wss.push(ws);
      if (o.plugin) ws.writeProgram({}, { runtime: "yaml", project: name, extraYaml: code || "resources: {}\n" });
      else fs.writeFileSync(path.join(ws.programDir, "index.js"), code);
      must("stack init", await ws.initStack());
      must("config", await ws.setConfig("keboola:host", emu.url));
      must("config", await ws.setConfig("keboola:token", TOKEN, { secret: true }));
      return ws;
    };
    // The bound: what Pulumi itself costs for an empty program, plus the critical path's tasks.
    const empty = await setUp("bench-empty", o.plugin ? "" : `"use strict";\n`);
    const emptyUp = await timed(() => empty.up(extra, { timeoutMs: 600_000 }), "empty up");
    const bound = emptyUp + (3 * o.taskMs) / 1000;

    const ws = await setUp("bench-fleet", o.plugin ? yamlProgram(o) : program(o));
    emu.clearRequests();
    const env = o.cpuProf ? { NODE_OPTIONS: `--require ${path.join(__dirname, "lib", "cpu-prof-preload.js")}`, KEBOOLA_CPU_PROF_DIR: path.resolve(o.cpuProf) } : undefined;
    const cpu = sampleCpu();
    const upStarted = Date.now();
    const profiling = o.pulumiProfile ? ["--profiling", path.resolve(o.pulumiProfile)] : [];
    const skip = o.skipCheckpoints ? { PULUMI_SKIP_CHECKPOINTS: "true" } : {};
    const up = await timed(() => ws.up([...extra, ...profiling], { timeoutMs: 1_800_000, env: { ...env, ...skip } }), "up");
    const upCpu = cpu.stop();
    const upLog = emu.requests();
    const upRequests = upLog.length;
    // Polls of Stream tasks: how many follows from D and the 150 ms noticing rule (api/tasks.ts).
    const upPolls = upLog.filter((e) => e.method === "GET" && /\/v1\/tasks\//.test(e.path)).length;
    emu.clearRequests();
    const preview = await timed(() => ws.previewExpectNoChanges(extra, { timeoutMs: 600_000 }), "no-op preview");
    const previewWrites = emu.writes().length;
    const noChangeUp = await timed(() => ws.up(extra, { timeoutMs: 1_800_000, env: skip }), "no-change up");
    const noChangeWrites = emu.writes().length - previewWrites;
    emu.clearRequests();
    const refresh = await timed(() => ws.refresh(extra, { timeoutMs: 600_000 }), "refresh");
    const refreshRequests = emu.requests().length;
    const state = await ws.exportStack();
    const providers = (state.deployment.resources ?? []).map((r) => String((r.inputs as { __provider?: string } | undefined)?.__provider ?? "")).filter(Boolean);
    const stateBytes = JSON.stringify(state).length;
    if (process.env.BENCH_DUMP_STATE) fs.writeFileSync(process.env.BENCH_DUMP_STATE, JSON.stringify(state, null, 1));
    emu.clearRequests();
    const skipCheckpoints = !!o.skipCheckpoints;
    const destroyStarted = Date.now();
    const destroy = await timed(() => ws.destroy(extra, { timeoutMs: 1_800_000, env: skip }), "destroy");
    const destroyLog = emu.requests();
    const destroyWrites = emu.writes();
    const destroyBound = emptyUp + (2 * o.taskMs) / 1000;

    // The direct script, on the same emulator, at the same parallelism (its objects under other ids).
    const direct = await directFleet(emu.url, TOKEN, { sources: o.sources, sinks: o.sinks, prefix: "direct-" }, o.parallel ?? 8);
    const ratio = (s: number) => `${s.toFixed(1)} s (${(s / bound).toFixed(2)}x bound)`;
    console.log(`\nfleet: ${label} (load average ${fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")})`);
    console.log(`  bound     ${bound.toFixed(1)} s (empty up ${emptyUp.toFixed(1)} s + 3 x ${o.taskMs} ms)`);
    console.log(`  up        ${ratio(up)}, ${(upRequests / resources).toFixed(2)} requests per created resource (${((upRequests - upPolls) / resources).toFixed(2)} without the ${(upPolls / resources).toFixed(2)} task polls)`);
    console.log(`  direct    ${direct.toFixed(1)} s: the same writes by a script at the same parallelism; up is ${(up / direct).toFixed(2)}x it`);
    console.log(`  preview   ${ratio(preview)}, ${previewWrites} writes`);
    console.log(`  no-change up ${noChangeUp.toFixed(1)} s, ${noChangeWrites} writes`);
    console.log(`  refresh   ${ratio(refresh)}, ${(refreshRequests / resources).toFixed(2)} requests per resource`);
    console.log(
      `  destroy   ${ratio(destroy)}${skipCheckpoints ? " with PULUMI_SKIP_CHECKPOINTS=true" : ""}; ${(destroy / destroyBound).toFixed(2)}x the destroy bound ${destroyBound.toFixed(1)} s (empty up + 2 x ${o.taskMs} ms); ${destroyWrites.length} writes:` +
        breakdown(destroyWrites),
    );
    console.log(`  destroy timeline (s after start, first..last): ${timeline(destroyLog, destroyStarted, DESTROY_KINDS)}`);
    console.log(`  up requests by kind: ${breakdown(upLog)}`);
    console.log(`  up timeline (s after start, first..last): ${timeline(upLog, upStarted)}`);
    const cpuTotal = Object.entries(upCpu.byKind).reduce((a, [k, v]) => (k.startsWith("not this") ? a : a + v), 0);
    console.log(
      `  up CPU    ${cpuTotal.toFixed(1)} s in ${upCpu.wallSeconds.toFixed(1)} s:` +
        Object.entries(upCpu.byKind)
          .sort((a, b) => b[1] - a[1])
          .map(([k, v]) => `\n    ${v.toFixed(1).padStart(5)} s ${k}`)
          .join(""),
    );
    const mb = (b: number) => `${(b / 1024 / 1024).toFixed(0)} MB`;
    console.log(`  up peak RSS: ${Object.entries(upCpu.peakRssByKind).filter(([k]) => k !== "emulator (bench process)").sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${mb(v)}`).join(", ")}`);
    console.log(`  state     ${(stateBytes / 1024).toFixed(0)} KB, ${(stateBytes / resources).toFixed(0)} B per declared resource, __provider ${Math.max(...providers.map((p) => p.length))} B per resource`);
    console.log(formatStateBytes(stateBytesOf(state.deployment.resources ?? [])));
    const engineCpu = Object.entries(upCpu.byKind).reduce((a, [k, v]) => (/engine/.test(k) ? a + v : a), 0);
        const rss = upCpu.peakRssByKind;
    return { resources, up, noChangeUp, preview, destroy, direct, engineCpu, bytesPerResource: stateBytes / resources, programRss: rss["program (node)"] ?? 0, providerRss: rss["dynamic provider (node)"] ?? rss["provider plugin (node)"] ?? 0 };
  } finally {
    for (const ws of wss.reverse()) await ws.cleanup();
    await emu.close();
  }
}

/** When the requests of each phase came: the first and the last of each kind of write and of the table reads. */
const UP_KINDS: Array<[string, RegExp]> = [
  ["any request", /./],
  ["GET table", /^GET \/v2\/storage\/tables\//],
  ["POST source", /^POST .*\/sources$/],
  ["POST sink", /^POST .*\/sinks$/],
  ["PATCH settings", /^PATCH .*\/settings$/],
];
const DESTROY_KINDS: Array<[string, RegExp]> = [
  ["any request", /./],
  ["PATCH settings", /^PATCH .*\/settings$/],
  ["DELETE sink", /^DELETE .*\/sinks\/[^/]+$/],
  ["DELETE source", /^DELETE .*\/sources\/[^/]+$/],
];

function timeline(log: ReadonlyArray<{ method: string; path: string; at: string }>, started: number, kinds = UP_KINDS): string {
  return kinds
    .map(([name, re]) => {
      const at = log.filter((e) => re.test(`${e.method} ${e.path.replace(/\?.*$/, "")}`)).map((e) => (Date.parse(e.at) - started) / 1000);
      return at.length ? `\n    ${name.padEnd(15)} ${Math.min(...at).toFixed(2)} .. ${Math.max(...at).toFixed(2)}` : "";
    })
    .join("");
}

/** Requests grouped by method and path shape (ids and query values elided), most frequent first. */
function breakdown(log: ReadonlyArray<{ method: string; path: string }>): string {
  const counts = new Map<string, number>();
  for (const e of log) {
    const shape = `${e.method} ${e.path.replace(/\?.*$/, "").replace(/\/v1\/tasks\/.*$/, "/v1/tasks/:id").replace(/\/(?:[0-9]+|[a-z0-9-]+-[0-9]+|task\.[^/]+|[a-f0-9-]{20,}|(?:in|out)\.c-[^/.]+\.[^/]+)(?=\/|$)/g, "/:id")}`;
    counts.set(shape, (counts.get(shape) ?? 0) + 1);
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1]).map(([k, n]) => `\n    ${String(n).padStart(5)} ${k}`).join("");
}

/** The curve as a Markdown table (README, "Large stacks"): each size, and its growth from the first. */
function printCurve(curve: Measured[], o: Options): void {
  const base = curve[0];
  const x = (v: number, b: number) => `${v.toFixed(1)} s (${(v / b).toFixed(1)}x)`;
  console.log(`\nThe curve${o.plugin ? " through the provider plugin (YAML)" : ""}, D = ${o.taskMs} ms, --parallel ${o.parallel ?? "default"}${o.skipCheckpoints ? ", PULUMI_SKIP_CHECKPOINTS=true" : ""} (growth from ${base.resources} resources in parentheses):\n`);
  console.log("| resources | `up` | direct script | `up` / direct | no-change `up` | `preview` | `destroy` | engine CPU in `up` | state per resource | peak RSS: program, provider |");
  console.log("|---:|---|---:|---:|---|---|---|---|---:|---:|");
  for (const m of curve) {
    console.log(
      `| ${m.resources} | ${x(m.up, base.up)} | ${m.direct.toFixed(1)} s | ${(m.up / m.direct).toFixed(2)}x | ${x(m.noChangeUp, base.noChangeUp)} | ${x(m.preview, base.preview)} | ${x(m.destroy, base.destroy)} | ${x(m.engineCpu, base.engineCpu)} | ${(m.bytesPerResource / 1024).toFixed(2)} KB | ${(m.programRss / 2 ** 20).toFixed(0)}, ${(m.providerRss / 2 ** 20).toFixed(0)} MB |`,
    );
  }
}

if (require.main === module) runMain(benchFleetCommand);
