// Prints the functions with the most self time over a set of .cpuprofile files:
//   node dist/scripts/lib/cpu-prof-top.js DIR PREFIX [N]
import * as fs from "node:fs";
import * as path from "node:path";
import { z } from "zod";
import { parseJson } from "../../keboola/json";

// A V8 .cpuprofile (the inspector's Profiler.Profile), as far as it is read here.
const profileSchema = z.object({
  nodes: z.array(z.object({ id: z.number(), callFrame: z.object({ functionName: z.string(), url: z.string(), lineNumber: z.number() }), hitCount: z.number().optional() })),
  samples: z.array(z.number()).optional(),
  timeDeltas: z.array(z.number()).optional(),
});

const [dir, prefix, n = "25"] = process.argv.slice(2);
const self = new Map<string, number>();
const byFile = new Map<string, number>();
let total = 0;
for (const f of fs.readdirSync(dir).filter((f) => f.startsWith(prefix) && f.endsWith(".cpuprofile"))) {
  const p = profileSchema.parse(parseJson(fs.readFileSync(path.join(dir, f), "utf8")));
  const byId = new Map(p.nodes.map((x) => [x.id, x]));
  const samples = p.samples ?? [];
  const deltas = p.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) {
    const node = byId.get(samples[i])!;
    const us = deltas[i] ?? 0;
    const fr = node.callFrame;
    const file = fr.url.replace(/^.*node_modules\//, "").replace(/^file:\/\//, "");
    const key = `${fr.functionName || "(anon)"} ${file}:${fr.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + us);
    const pkg = /^(@[^/]+\/[^/]+|[^/]+)/.exec(file)?.[1] ?? "(native)";
    byFile.set(pkg || "(native)", (byFile.get(pkg) ?? 0) + us);
    total += us;
  }
}
const fmt = (us: number) => `${(us / 1e6).toFixed(2).padStart(6)} s`;
console.log(`${prefix}: ${fmt(total)} sampled`);
for (const [k, v] of [...byFile].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(`  ${fmt(v)}  ${k}`);
console.log("  --- self time by function");
for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(n))) console.log(`  ${fmt(v)}  ${k}`);
