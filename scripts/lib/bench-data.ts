import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { z } from "zod";
import { parseJson } from "../../keboola/json";
import { isWriteMethod } from "../../emulator/core/context";
import { startEmulatorProcess, type EmulatorProcess } from "./emulator-process";
import { sampleCpu, type CpuReport } from "./cpu-sample";
import { presignedPutUrl, type PreparedForPut } from "./presigned-put";
import { describeResult, makePulumiWorkspace, type PulumiWorkspace, type RunResult } from "./pulumi-workspace";

// The data case of `npm run bench` (issue 17): a generated CSV of --data-mb MB (default 1024)
// loaded into a Table declared in a program, with `pulumi up` through the real CLI and the packed
// package, measured in the same run against a baseline: the same bytes PUT to the emulator's
// object store by a plain HTTP client (a URL presigned with the temporary credentials that
// `files/prepare` with `federationToken` issues) plus the `tables-async` job that creates the
// same table from them (the same primary key, so the job de-duplicates the same rows), polled to
// its end every 150 ms as the provider polls. Each side loads into a fresh emulator process of its
// own (emulator-process.ts), so the job's own work (the CSV parse and de-duplication) is on both
// sides in the same conditions; the gunzip of what the provider gzipped is on the provider's side.
//
// The provider's peak RSS: every 100 ms the bench reads /proc/<pid>/status of the dynamic provider
// (the node process whose command line names @pulumi/pulumi's dynamic-provider and whose working
// directory is the program's, looked for once a second) and keeps the largest VmHWM (the kernel's own high-water mark of its
// resident set), so only the last <100 ms of a process's life can escape it.

const TOKEN = "bench-data-token-0123456789";

/** Writes a CSV of about `bytes` bytes (id, code, name, amount, at, note), streamed; answers its rows. */
export async function generateCsv(file: string, bytes: number): Promise<number> {
  let rows = 0;
  let written = 0;
  let seed = 42;
  const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  const words = ["alpha", "beta", "gamma", "delta", "kappa", "sigma", "omega", "north", "south", "harbour", "meadow", "quartz"];
  function* chunks(): Generator<string> {
    yield "id,code,name,amount,at,note\n";
    written += 28;
    while (written < bytes) {
      let s = "";
      for (let i = 0; i < 2000 && written + s.length < bytes; i++) {
        rows++;
        const w = words[Math.floor(rand() * words.length)];
        const note = rand() < 0.1 ? `"${w}, ""quoted"" ${Math.floor(rand() * 1e6)}"` : `${w} ${words[Math.floor(rand() * words.length)]} ${Math.floor(rand() * 1e9).toString(36)}`;
        s += `${rows},${w.slice(0, 2).toUpperCase()}${Math.floor(rand() * 100)},${w}-${rows % 9973},${(rand() * 1e5).toFixed(2)},2024-0${1 + (rows % 9)}-1${rows % 10}T12:${String(rows % 60).padStart(2, "0")}:00Z,${note}\n`;
      }
      written += s.length;
      yield s;
    }
  }
  await pipeline(Readable.from(chunks()), fs.createWriteStream(file));
  return rows;
}

interface Peak {
  /** The peak, the pids seen, and the largest resident set (VmRSS, MB) of each second. */
  stop(): { peakKb: number; pids: number[]; perSecondMb: number[] };
}

/** Samples the peak RSS (VmHWM) of the dynamic provider processes running in `programDir`. */
function samplePeakRss(programDir: string): Peak {
  let peakKb = 0;
  const pids = new Set<number>();
  const started = Date.now();
  const perSecondMb: number[] = [];
  const live = new Set<string>();
  let ticks = 0;
  const read = (name: string) => {
    try {
      const status = fs.readFileSync(`/proc/${name}/status`, "utf8");
      const hwm = /VmHWM:\s+(\d+) kB/.exec(status);
      const rss = /VmRSS:\s+(\d+) kB/.exec(status);
      if (hwm) peakKb = Math.max(peakKb, Number(hwm[1]));
      const second = Math.floor((Date.now() - started) / 1000);
      if (rss) perSecondMb[second] = Math.max(perSecondMb[second] ?? 0, Math.round(Number(rss[1]) / 1024));
    } catch {
      live.delete(name); // gone
    }
  };
  // The provider's pids are looked for in all of /proc once a second; in between, only their own
  // status is read (the sampler runs on the cores it measures: keep it light).
  const tick = () => {
    if (ticks++ % 10 === 0) {
      for (const name of fs.readdirSync("/proc")) {
        if (!/^\d+$/.test(name) || live.has(name)) continue;
        try {
          const cmd = fs.readFileSync(`/proc/${name}/cmdline`, "utf8");
          if (!/dynamic-provider/.test(cmd) || fs.readlinkSync(`/proc/${name}/cwd`) !== programDir) continue;
          live.add(name);
          pids.add(Number(name));
        } catch {
          // gone meanwhile, or not ours to read
        }
      }
    }
    for (const name of live) read(name);
  };
  const timer = setInterval(tick, 100);
  return {
    stop() {
      clearInterval(timer);
      tick();
      return { peakKb, pids: [...pids], perSecondMb: Array.from(perSecondMb, (v) => v ?? 0) };
    },
  };
}

async function api<T>(emu: { url: string }, method: string, p: string, answer: z.ZodType<T>, json?: unknown): Promise<T> {
  const res = await fetch(`${emu.url}${p}`, {
    method,
    headers: { "X-StorageApi-Token": TOKEN, ...(json !== undefined ? { "Content-Type": "application/json" } : {}) },
    body: json !== undefined ? JSON.stringify(json) : undefined,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${text}`);
  return answer.parse(text ? parseJson(text) : undefined);
}

/** A files/prepare answer with `federationToken`, as far as the baseline reads it. */
const preparedFileSchema = z.object({
  id: z.number(),
  region: z.string(),
  s3Endpoint: z.string(),
  uploadParams: z.object({
    bucket: z.string(),
    key: z.string(),
    credentials: z.object({ AccessKeyId: z.string(), SecretAccessKey: z.string(), SessionToken: z.string() }),
  }),
}) satisfies z.ZodType<PreparedForPut>;

const jobSchema = z.object({ id: z.number(), status: z.string(), error: z.object({ message: z.string().optional() }).optional() });
const tableSchema = z.object({ rowsCount: z.number() });

/** The baseline: prepare, a plain presigned HTTP PUT of the file, `tables-async`, polled to the end. Answers seconds: in all, and to the PUT's end. */
async function baseline(emu: EmulatorProcess, file: string, size: number): Promise<{ seconds: number; putSeconds: number }> {
  await api(emu, "POST", "/v2/storage/buckets", z.unknown(), { name: "baseline", stage: "in" });
  const started = Date.now();
  const p = await api(emu, "POST", "/v2/storage/files/prepare", preparedFileSchema, { name: "baseline.csv", sizeBytes: size, federationToken: 1 });
  const url = await presignedPutUrl(p, 3600);
  const put = await fetch(url, {
    method: "PUT",
    body: Readable.toWeb(fs.createReadStream(file, { highWaterMark: 1024 * 1024 })),
    headers: { "Content-Type": "text/csv", "Content-Length": String(size) },
    duplex: "half",
  });
  if (put.status !== 200) throw new Error(`baseline PUT: ${put.status} ${await put.text()}`);
  const putSeconds = (Date.now() - started) / 1000;
  let job = await api(emu, "POST", "/v2/storage/buckets/in.c-baseline/tables-async", jobSchema, { name: "big", dataFileId: p.id, primaryKey: "id" });
  while (job.status !== "success" && job.status !== "error") {
    await new Promise((r) => setTimeout(r, 150));
    job = await api(emu, "GET", `/v2/storage/jobs/${job.id}`, jobSchema);
  }
  if (job.status !== "success") throw new Error(`baseline job failed: ${job.error?.message ?? "?"}`);
  return { seconds: (Date.now() - started) / 1000, putSeconds };
}

function must(what: string, res: RunResult): RunResult {
  if (res.code !== 0) throw new Error(`${what} failed:\n${describeResult(res)}`);
  return res;
}

const cpuLine = (r: CpuReport) =>
  Object.entries(r.byKind)
    .filter(([, v]) => v >= 0.05)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${v.toFixed(1)} ${k}`)
    .join(", ");

const loadavg = () => fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");

/** Runs the data case with the packed package installed in `nodeModules`; prints its figures. */
export async function benchData(nodeModules: string, dataMb: number): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "keboola-bench-data-"));
  // Each side loads into an emulator process of its own, started empty: the baseline's table (a GB
  // of rows in the emulator's heap) would otherwise slow every garbage collection of the up side's load.
  const emulatorFlags = ["--token", TOKEN, "--task-duration", "100"];
  // BENCH_DATA_EMULATOR_NODE_ARGS="...": node's arguments for both emulator processes, e.g.
  // "--cpu-prof --cpu-prof-dir=DIR" (a profile each, written when the bench stops them).
  const emulatorNodeArgs = (process.env.BENCH_DATA_EMULATOR_NODE_ARGS ?? "").split(" ").filter(Boolean);
  let emu = await startEmulatorProcess(emulatorFlags, emulatorNodeArgs);
  let ws: PulumiWorkspace | undefined;
  try {
    const csv = path.join(dir, "big.csv");
    const genStarted = Date.now();
    const rows = await generateCsv(csv, dataMb * 1024 * 1024);
    const size = fs.statSync(csv).size;
    console.log(`\ndata: generated ${(size / 1048576).toFixed(0)} MB, ${rows} rows in ${((Date.now() - genStarted) / 1000).toFixed(1)} s (load average ${loadavg()})`);

    ws = await makePulumiWorkspace({ project: "bench-data" });
    ws.writeProgram({
      "index.js": `"use strict";
const keboola = require("keboola-pulumi");
const bucket = new keboola.Bucket("data", { stage: "in", name: "data" });
new keboola.Table("big", { bucketId: bucket.bucketId, name: "big", columns: ["id", "code", "name", "amount", "at", "note"], primaryKey: ["id"], data: ${JSON.stringify(csv)} });
`,
    });
    fs.rmSync(path.join(ws.programDir, "node_modules"), { recursive: true, force: true });
    fs.symlinkSync(nodeModules, path.join(ws.programDir, "node_modules"), "dir");
    must("stack init", await ws.initStack());
    const loadBefore = loadavg();
    let cpu = sampleCpu("bench process (samplers)");
    const { seconds: base, putSeconds } = await baseline(emu, csv, size);
    const baseCpu = cpu.stop();
    const baseTable = await api(emu, "GET", "/v2/storage/tables/in.c-baseline.big", tableSchema);
    await emu.close();
    emu = await startEmulatorProcess(emulatorFlags, emulatorNodeArgs);
    must("config", await ws.setConfig("keboola:host", emu.url));
    must("config", await ws.setConfig("keboola:token", TOKEN, { secret: true }));
    const rss = samplePeakRss(fs.realpathSync(ws.programDir));
    // BENCH_DATA_CPU_PROF=DIR: V8 CPU profiles of the program and the provider (cpu-prof-preload.ts).
    const prof = process.env.BENCH_DATA_CPU_PROF;
    // BENCH_DATA_NODE_OPTIONS="...": node options for the `up`'s processes (the program and the
    // dynamic provider), as a user sets NODE_OPTIONS for `pulumi up`; e.g. --max-semi-space-size=1.
    const nodeOptions = [prof ? `--require ${path.join(__dirname, "cpu-prof-preload.js")}` : "", process.env.BENCH_DATA_NODE_OPTIONS ?? ""].filter(Boolean).join(" ");
    const env = prof || nodeOptions ? { ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}), ...(prof ? { KEBOOLA_CPU_PROF_DIR: path.resolve(prof) } : {}) } : undefined;
    cpu = sampleCpu("bench process (samplers)");
    const upStarted = Date.now();
    must("up", await ws.up([], { timeoutMs: 1_800_000, env }));
    const up = (Date.now() - upStarted) / 1000;
    const upCpu = cpu.stop();
    const peak = rss.stop();
    const loadAfter = loadavg();
    const table = await api(emu, "GET", "/v2/storage/tables/in.c-data.big", tableSchema);
    if (table.rowsCount !== rows || baseTable.rowsCount !== rows) throw new Error(`rows: up loaded ${table.rowsCount}, baseline ${baseTable.rowsCount}, the file has ${rows}`);
    const mbps = (s: number) => `${(size / 1048576 / s).toFixed(0)} MB/s`;
    console.log(`  baseline  ${base.toFixed(1)} s (${mbps(base)}): prepare, plain presigned PUT of the raw file, tables-async (primary key id) polled to the end`);
    console.log(`  up        ${up.toFixed(1)} s (${mbps(up)}), ${(up / base).toFixed(2)}x baseline (target <= 1.5x); ${table.rowsCount} rows loaded`);
    // Where the `up`'s time went, from the emulator's request log: the sliced upload (the big file's
    // prepare to its manifest), then import-async to the poll that saw its job end.
    const log = await emu.requests();
    const at = (e: { at: string } | undefined) => (e ? ((Date.parse(e.at) - upStarted) / 1000).toFixed(1) : "?");
    const prepares = log.filter((r) => r.method === "POST" && r.path.includes("/files/prepare"));
    const manifest = log.find((r) => r.method === "PUT" && r.path.includes("manifest"));
    const load = log.find((r) => r.method === "POST" && r.path.includes("/import-async"));
    const lastPoll = log.filter((r) => r.method === "GET" && r.path.includes("/v2/storage/jobs/")).at(-1);
    console.log(`  up phases s: first request ${at(log[0])}, data prepare ${at(prepares.at(-1))}, manifest ${at(manifest)}, import-async ${at(load)}, last job poll ${at(lastPoll)}; baseline PUT done at ${putSeconds.toFixed(1)}`);
    console.log(`  provider  peak RSS ${(peak.peakKb / 1024).toFixed(0)} MB (VmHWM of the dynamic provider, pid ${peak.pids.join(", ")}; target <= 200 MB)${nodeOptions ? `, NODE_OPTIONS=${nodeOptions}` : ""}`);
    // BENCH_DATA_RSS_TRACE=1: when in the `up` the provider's memory rose (its VmRSS, MB, second by second).
    if (process.env.BENCH_DATA_RSS_TRACE) console.log(`  provider  VmRSS per second: ${peak.perSecondMb.join(" ")}`);
    console.log(`  CPU s     baseline: ${cpuLine(baseCpu)}\n            up: ${cpuLine(upCpu)}`);
    console.log(`  load average before ${loadBefore}, after ${loadAfter}`);
    if (!process.env.BENCH_DATA_SKIP_NOOP) {
      await emu.clearRequests();
      const noopStarted = Date.now();
      must("no-op preview", await ws.previewExpectNoChanges([], { timeoutMs: 600_000 }));
      console.log(`  no-op preview ${((Date.now() - noopStarted) / 1000).toFixed(1)} s (the file's scan kept from the up, scan-cache.ts), ${(await emu.requests()).filter((r) => isWriteMethod(r.method)).length} writes`);
    }
  } finally {
    await ws?.cleanup();
    await emu.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
