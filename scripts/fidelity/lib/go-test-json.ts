import * as fs from "node:fs";
import { z } from "zod";

// `go test -json` (test2json) events, folded into one record per test. A record's output holds
// its own lines and its subtests', in order, so that a top-level test's record tells why any part
// of it failed.

/** One test2json event, as far as it is read (cmd/test2json's TestEvent). */
const goTestEventSchema = z.object({
  Time: z.string().optional(),
  Action: z.string(),
  Package: z.string().optional(),
  Test: z.string().optional(),
  Output: z.string().optional(),
  Elapsed: z.number().optional(),
});
export type GoTestEvent = z.infer<typeof goTestEventSchema>;

export type TestStatus = "pass" | "fail" | "skip" | "unfinished";

export interface TestRecord {
  name: string;
  status: TestStatus;
  output: string[];
  /** Seconds, as go test reports them. */
  elapsed: number;
  /** When it last started or resumed: its `run` or `cont` event (epoch ms). A parallel test runs after its last `cont`. */
  started?: number;
  /** When its pass/fail/skip came (epoch ms). */
  ended?: number;
  /** When its first output line matching the parser's `mark` came (epoch ms). */
  marked?: number;
}

export interface GoTestRun {
  tests: Map<string, TestRecord>;
  buildFailed: boolean;
  /** Output not tied to a test (package-level: panics, FAIL lines, build errors). */
  packageOutput: string[];
}

export function parseGoTestEvent(line: string): GoTestEvent | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  const e = goTestEventSchema.safeParse(value);
  return e.success ? e.data : undefined;
}

/** Reads a `go test -json` file; `mark` timestamps a test's first matching output line. */
export function parseGoTestJson(file: string, mark?: RegExp): GoTestRun {
  const tests = new Map<string, TestRecord>();
  const packageOutput: string[] = [];
  let buildFailed = false;
  const lines = fs.existsSync(file) ? fs.readFileSync(file, "utf8").split("\n") : [];
  const record = (name: string) => {
    let t = tests.get(name);
    if (!t) {
      t = { name, status: "unfinished", output: [], elapsed: 0 };
      tests.set(name, t);
    }
    return t;
  };
  for (const line of lines) {
    if (!line.trim()) continue;
    const e = parseGoTestEvent(line);
    if (!e) {
      packageOutput.push(line + "\n");
      continue;
    }
    if (e.Action === "build-fail") buildFailed = true;
    const time = e.Time ? Date.parse(e.Time) : undefined;
    if (!e.Test) {
      if (e.Action === "output" && e.Output) packageOutput.push(e.Output);
      continue;
    }
    const t = record(e.Test);
    if (e.Action === "run" || e.Action === "cont") t.started = time;
    if (e.Action === "output" && e.Output !== undefined) {
      // The test and each of its parents (TestA/b/c -> TestA/b, TestA).
      const parts = e.Test.split("/");
      for (let n = parts.length; n >= 1; n--) record(parts.slice(0, n).join("/")).output.push(e.Output);
      if (mark && t.marked === undefined && mark.test(e.Output)) t.marked = time;
    }
    if (e.Action === "pass" || e.Action === "fail" || e.Action === "skip") {
      t.status = e.Action;
      t.elapsed = e.Elapsed ?? 0;
      t.ended = time;
    }
  }
  return { tests, buildFailed, packageOutput };
}
