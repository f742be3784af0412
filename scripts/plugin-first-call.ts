#!/usr/bin/env node
// How long the provider plugin takes to its first answers, as the engine meets it: the plugin is
// started as a process (the npm bin under this Node.js, or the self-contained executable of
// `npm run build:plugin`), and from the moment it is spawned this times the port on its stdout,
// then GetSchema, Configure (against an emulator in this process) and the first Check (a Bucket's,
// which loads the kinds and asks the stack), each call after the one before, and the CPU time the
// plugin had used by then. Each run is a new process; the figures are the median of the runs (the
// command line: pluginFirstCallCommand below).
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { performance } from "node:perf_hooks";
import { randomBytes } from "node:crypto";
import * as grpc from "@grpc/grpc-js";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import * as proto from "@pulumi/pulumi/proto/provider_pb";
import { ResourceProviderClient } from "@pulumi/pulumi/proto/provider_grpc_pb";
import { startEmulator } from "../emulator/server";
import { PULUMI_RESOURCE_KEBOOLA } from "./lib/bin";
import { portOf } from "./plugin-package/port";
import { command, runMain, UsageError } from "../provider/cli/command";

/** Milliseconds from the spawn to each answer, and the CPU time the plugin had used by the last. */
export interface FirstCall {
  port: number;
  getSchema: number;
  configure: number;
  check: number;
  /** The plugin process's user and system CPU time when the Check was answered (Linux; NaN elsewhere). */
  cpu: number;
}

const STEPS = ["port", "getSchema", "configure", "check", "cpu"] as const;

/**
 * A process's user and system CPU time in ms, from /proc/<pid>/stat (fields 14 and 15, in clock
 * ticks: 100 a second on Linux). On a machine others are using, it moves much less than the wall
 * times do.
 */
function cpuMs(pid: number | undefined): number {
  try {
    const stat = fs.readFileSync(`/proc/${String(pid)}/stat`, "utf8");
    // The command name (field 2) is in parentheses and may hold spaces: count from after it.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

/** How to start `plugin`: a .js file under this Node.js (as npm's bin shim does), anything else as an executable. */
function commandOf(plugin: string): [string, string[]] {
  return plugin.endsWith(".js") ? [process.execPath, [plugin]] : [plugin, []];
}

/** One plugin process, from its spawn to the answer of its first Check; it is stopped after. */
export async function firstCall(plugin: string, settings: { host: string; token: string }, timeoutMs = 60_000): Promise<FirstCall> {
  const [cmd, args] = commandOf(plugin);
  const started = performance.now();
  const child = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  let client: ResourceProviderClient | undefined;
  try {
    const port = await portOf(child, exited, timeoutMs);
    const at = { port: performance.now() - started };
    const c = new ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    client = c;
    const unary = <Req, Res>(fn: (req: Req, cb: (err: grpc.ServiceError | null, res: Res) => void) => unknown, req: Req) =>
      new Promise<Res>((resolve, reject) => fn.call(c, req, (err, res) => (err ? reject(err) : resolve(res))));

    await unary(c.getSchema, new proto.GetSchemaRequest());
    const getSchema = performance.now() - started;
    const configure = new proto.ConfigureRequest().setArgs(Struct.fromJavaScript({}));
    configure.getVariablesMap().set("keboola:config:host", settings.host).set("keboola:config:token", settings.token);
    await unary(c.configure, configure);
    const configured = performance.now() - started;
    const check = new proto.CheckRequest()
      .setUrn("urn:pulumi:dev::first-call::keboola:index:Bucket::ref")
      .setName("ref")
      .setType("keboola:index:Bucket")
      .setOlds(Struct.fromJavaScript({}))
      .setNews(Struct.fromJavaScript({ stage: "in", name: "first-call", description: "Timed" }));
    const checked = await unary<proto.CheckRequest, proto.CheckResponse>(c.check, check);
    const checkAt = performance.now() - started;
    const cpu = cpuMs(child.pid);
    // A refused check would time a shorter path than a real program's.
    const failures = checked.getFailuresList().map((f) => `${f.getProperty()}: ${f.getReason()}`);
    if (failures.length > 0) throw new Error(`the Check was refused: ${failures.join("; ")}`);
    return { port: at.port, getSchema, configure: configured, check: checkAt, cpu };
  } catch (err) {
    throw new Error(`${plugin}: ${err instanceof Error ? err.message : String(err)}${stderr ? `\n--- its stderr:\n${stderr}` : ""}`);
  } finally {
    client?.close();
    child.kill("SIGTERM");
    await exited;
  }
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The plugin to run: the npm bin, an executable, or the executable of a plugin archive (extracted into `tmp`). */
function pluginPath(given: string | undefined, tmp: string): string {
  if (!given) return PULUMI_RESOURCE_KEBOOLA;
  const file = path.resolve(given);
  if (!fs.existsSync(file)) throw new UsageError(`${given} does not exist`);
  if (!file.endsWith(".tar.gz")) return file;
  const res = spawnSync("tar", ["-xzf", file, "-C", tmp], { encoding: "utf8" });
  if (res.status !== 0) throw new Error(`tar -xzf ${given}: ${res.stderr}`);
  return path.join(tmp, "pulumi-resource-keboola");
}

const ms = (v: number) => `${Math.round(v)} ms`.padStart(8);

export const pluginFirstCallCommand = command({
  name: "plugin-first-call",
  summary: "the time from starting the provider plugin to its port, GetSchema, Configure and first Check",
  usage: "node dist/scripts/plugin-first-call.js [--plugin <file>] [--runs 5]",
  description:
    "Each run starts the plugin anew; the times count from its spawn, cpu is the plugin's CPU time by the\n" +
    "Check's answer (Linux). Prints each run and their median.\n" +
    "<file>: the plugin's .js entry (run with this Node.js), an executable, or an archive of npm run build:plugin.",
  options: {
    plugin: { type: "string", value: "<file>", help: "the plugin (default: package.json's bin pulumi-resource-keboola)" },
    runs: { type: "string", default: "5", value: "<n>", help: "how many runs (the median is printed last)" },
  },
  async run({ values }, io) {
    const runs = Number(values.runs);
    if (!Number.isInteger(runs) || runs < 1) throw new UsageError(`--runs must be a positive whole number, got ${values.runs}`);
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "plugin-first-call-"));
    const token = randomBytes(16).toString("hex");
    const emu = await startEmulator({ token, taskDurationMs: 10 });
    try {
      const plugin = pluginPath(values.plugin, tmp);
      io.write(`${plugin}\n${["run", ...STEPS].map((s) => s.padStart(10)).join("")}\n`);
      const results: FirstCall[] = [];
      for (let i = 0; i < runs; i++) {
        const r = await firstCall(plugin, { host: emu.url, token });
        results.push(r);
        io.write(`${String(i + 1).padStart(10)}${STEPS.map((s) => ms(r[s]).padStart(10)).join("")}\n`);
      }
      io.write(`${"median".padStart(10)}${STEPS.map((s) => ms(median(results.map((r) => r[s]))).padStart(10)).join("")}\n`);
      return 0;
    } finally {
      await emu.close();
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  },
});

if (require.main === module) runMain(pluginFirstCallCommand);
