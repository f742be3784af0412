import * as fs from "node:fs";
import * as path from "node:path";
import type { TestRecord } from "./go-test-json";
import type { RequestLogEntry } from "./request-log";

// The artifacts that explain a run's failures from the request log:
//   failures.md    per failed test, its failure messages and the non-2xx answers it got meanwhile
//   endpoints.txt  non-2xx answers by endpoint template and client, and the counts of answers the
//                  runner gave or changed itself (shim, what-if)

export interface FailureReportOptions {
  work: string;
  tests: [string, TestRecord][];
  requests: RequestLogEntry[];
  /** The slot a test's project was served by, when its output tells (undefined: any slot). */
  slotOf?: (output: string) => number | undefined;
  /** Who sent a request, by User-Agent (e.g. "kbc" / "harness"). */
  client: (entry: RequestLogEntry) => string;
}

/** Ids in paths replaced by placeholders, so that answers group by endpoint. */
export function endpointTemplate(u: string): string {
  return u
    .split("?")[0]
    .replace(/\/(branch|dev-branches)\/\d+/g, "/$1/{branchId}")
    .replace(/\/configs\/[^/]+/g, "/configs/{configId}")
    .replace(/\/rows\/[^/]+/g, "/rows/{rowId}")
    .replace(/\/components\/[^/]+/g, "/components/{componentId}")
    .replace(/\/metadata\/\d+/g, "/metadata/{id}")
    .replace(/\/(tables|buckets)\/[^/]+/g, "/$1/{id}")
    .replace(/\/(files|jobs|schedules|versions|project-subscriptions|workspaces)\/[^/]+/g, "/$1/{id}")
    .replace(/\/tokens\/\d+/g, "/tokens/{id}")
    .replace(/\/exp-15\/.*/, "/exp-15/{key}");
}

const isError = (r: RequestLogEntry) => r.status >= 400 || r.status === 0;

/** The non-2xx answers a test got: those of its slot within its time window. */
export function errorsDuring(t: TestRecord, requests: RequestLogEntry[], slot: number | undefined): RequestLogEntry[] {
  const end = t.ended ?? Date.now();
  const start = t.marked !== undefined ? t.marked - 50 : t.started !== undefined ? t.started - 50 : end - t.elapsed * 1000 - 1000;
  return requests.filter((r) => isError(r) && (slot === undefined || r.emu === slot || r.emu === undefined) && r.t >= start && r.t <= end + 500);
}

export function writeFailureReport(o: FailureReportOptions): Map<string, number> {
  const out: string[] = [];
  for (const [key, t] of [...o.tests].sort((a, b) => a[0].localeCompare(b[0]))) {
    if (t.status !== "fail" && t.status !== "unfinished") continue;
    const text = t.output.join("");
    const slot = o.slotOf?.(text);
    const bad = errorsDuring(t, o.requests, slot);
    const msgs = text.split("\n").filter((l) => /Error:|Error Trace|Unexpected|expected|actual|cannot|failed|panic/i.test(l)).slice(0, 40);
    out.push(`## ${key}  (${t.status}, ${t.elapsed}s${slot !== undefined ? `, slot ${slot}` : ""})\n`);
    if (bad.length) {
      out.push("non-2xx answers in its window:\n");
      for (const r of bad.slice(0, 20)) {
        out.push(`  ${r.status} ${r.method} ${r.s3 ? "s3:" + r.s3 : ""}${r.url}  [${r.ua ?? ""}] ${r.err ? r.err.replace(/\s+/g, " ").slice(0, 200) : ""}\n`);
      }
    }
    out.push("```\n" + msgs.join("\n").slice(0, 6000) + "\n```\n\n");
  }
  fs.writeFileSync(path.join(o.work, "failures.md"), out.join(""));

  const byEndpoint = new Map<string, { n: number; err?: string }>();
  const shims = new Map<string, number>();
  for (const r of o.requests) {
    if (r.shim) shims.set(r.shim, (shims.get(r.shim) ?? 0) + 1);
    if (!isError(r)) continue;
    const who = r.proxy ? "proxy" : o.client(r);
    const k = `${r.status} ${r.method} ${r.s3 ? "s3:" : ""}${endpointTemplate(r.url)} [${who}]`;
    const e = byEndpoint.get(k) ?? { n: 0, err: r.err };
    e.n++;
    byEndpoint.set(k, e);
  }
  const lines = [...byEndpoint.entries()]
    .sort((a, b) => b[1].n - a[1].n)
    .map(([k, e]) => `${String(e.n).padStart(5)}  ${k}  ${String(e.err ?? "").replace(/\s+/g, " ").slice(0, 160)}`);
  lines.push("", "answered or changed by the runner (shim, what-if):", ...[...shims.entries()].map(([k, n]) => `${String(n).padStart(5)}  ${k}`));
  fs.writeFileSync(path.join(o.work, "endpoints.txt"), lines.join("\n") + "\n");
  return shims;
}
