import * as fs from "node:fs";

// CPU time of this process and its descendants while something runs, grouped by what each process
// is (the Pulumi engine, the language host, the program, the dynamic provider, an emulator process,
// this process under the caller's label). Linux only (/proc); elsewhere it reports nothing.
// Sampled every 50 ms, so a process that ends loses at most its last 50 ms.

const TICK_S = 0.01; // USER_HZ is 100 on Linux

interface Sample {
  ppid: number;
  ticks: number;
  /** Resident memory now, in bytes. */
  rss: number;
}

const PAGE = 4096; // bytes per page of /proc/<pid>/stat's rss (x86-64 and arm64 Linux)

function readAll(): Map<number, Sample> {
  const out = new Map<number, Sample>();
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, "utf8");
      const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      out.set(Number(name), { ppid: Number(rest[1]), ticks: Number(rest[11]) + Number(rest[12]), rss: Number(rest[21]) * PAGE });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

function classify(pid: number, selfLabel: string): string {
  if (pid === process.pid) return selfLabel;
  let cmd = "";
  try {
    cmd = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ");
  } catch {
    return "other";
  }
  if (/dynamic-provider|pulumi-resource-pulumi-nodejs/.test(cmd)) return "dynamic provider (node)";
  if (/pulumi-resource-keboola|provider\/plugin\/main\.js/.test(cmd)) return "provider plugin (node)";
  if (/emulator\/cli\.js/.test(cmd)) return "emulator (node)";
  if (/pulumi-language-nodejs/.test(cmd)) return "language host (go)";
  if (/cmd\/run|run-plugin|node .*index\.js|@pulumi\/pulumi\/cmd/.test(cmd) || /^node /.test(cmd)) return "program (node)";
  if (/(^|\/)pulumi /.test(cmd)) return "engine (pulumi, go)";
  return cmd.split(" ")[0] || "other";
}

/** CPU seconds the whole machine has spent busy so far (all processes), from /proc/stat. */
function machineBusySeconds(): number {
  const [, user, nice, system, , , irq, softirq, steal] = fs.readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).map(Number);
  return (user + nice + system + irq + softirq + steal) * TICK_S;
}

export interface CpuReport {
  /** CPU seconds per kind of process; "not this benchmark" is everything else the machine ran meanwhile. */
  byKind: Record<string, number>;
  /** The largest resident memory one process of each kind reached (bytes; sampled, so a peak between samples is missed). */
  peakRssByKind: Record<string, number>;
  wallSeconds: number;
}

/** Samples until stop() is called; stop() answers the CPU seconds spent meanwhile per kind of process (this one's as `selfLabel`). */
export function sampleCpu(selfLabel = "emulator (bench process)"): { stop(): CpuReport } {
  if (!fs.existsSync("/proc/self/stat")) return { stop: () => ({ byKind: {}, peakRssByKind: {}, wallSeconds: 0 }) };
  const started = Date.now();
  const machineBefore = machineBusySeconds();
  const first = readAll();
  const kinds = new Map<number, string>();
  const last = new Map<number, number>();
  const peak = new Map<number, number>();
  const tick = () => {
    const all = readAll();
    const mine = new Set([process.pid]);
    for (let grew = true; grew; ) {
      grew = false;
      for (const [pid, s] of all) if (!mine.has(pid) && mine.has(s.ppid)) (mine.add(pid), (grew = true));
    }
    for (const pid of mine) {
      if (!kinds.has(pid)) kinds.set(pid, classify(pid, selfLabel));
      const s = all.get(pid)!;
      last.set(pid, s.ticks);
      peak.set(pid, Math.max(peak.get(pid) ?? 0, s.rss));
    }
  };
  tick();
  const timer = setInterval(tick, 50);
  return {
    stop() {
      clearInterval(timer);
      tick();
      const byKind: Record<string, number> = {};
      for (const [pid, ticks] of last) {
        const kind = kinds.get(pid) ?? "other";
        byKind[kind] = (byKind[kind] ?? 0) + (ticks - (first.get(pid)?.ticks ?? 0)) * TICK_S;
      }
      const peakRssByKind: Record<string, number> = {};
      for (const [pid, rss] of peak) {
        const kind = kinds.get(pid) ?? "other";
        peakRssByKind[kind] = Math.max(peakRssByKind[kind] ?? 0, rss);
      }
      const ours = Object.values(byKind).reduce((a, b) => a + b, 0);
      byKind["not this benchmark (other load)"] = Math.max(0, machineBusySeconds() - machineBefore - ours);
      return { byKind, peakRssByKind, wallSeconds: (Date.now() - started) / 1000 };
    },
  };
}
