#!/usr/bin/env node
import { startEmulator, type Emulator } from "../emulator/server";
import { goJSON } from "../keboola/go-json";
import { isRecord } from "../keboola/json";
import { firstDifference, wildcardsMatch } from "./lib/go-wildcards";
import { goRequest } from "./lib/go-request";
import { loadCases, type RecordedCase, type RecordedStep } from "./lib/stream-cases";
import { applyEtcdSnapshot } from "./lib/stream-etcd";
import { command, runMain, UsageError } from "../provider/cli/command";

// Replays keboola-as-code's recorded Stream API cases (`test/stream/api`, the Go harness
// internal/pkg/utils/testhelper/runner/test.go) against the emulator and reports, per case and in
// total, how many steps are answered as recorded.
//
//   npm run fidelity -- stream --kac <keboola-as-code tree> [--case <regex>] [--full] [--task-ms <n>]
//   (or node dist/scripts/stream-replay.js with the same options: streamReplayCommand below)
//
// --task-ms defaults to 0: tasks are done by the next request, as the real service's quick tasks
// are (see DEFAULT_TASK_MS).
//
// Each case gets a fresh emulator, set up as the Go harness sets up the real service: its public
// URLs (STREAM_API_PUBLIC_URL, STREAM_SOURCE_HTTP_PUBLIC_URL), an empty project, and the case's
// initial etcd state (initial-etcd-kvs.txt). Steps run in order; a request with `repeat.until` is
// repeated until its condition holds. A step matches when its status is the recorded one and its
// body, decoded and re-encoded as the harness does (Go's ordered map, MarshalIndent), matches the
// recorded body under go-utils' wildcard rules. Unlike the harness, a case goes on after a
// mismatch, so every step is judged. Not part of CI or `npm test`.

const TOKEN = "replay-master-token";
const PROJECT_ID = 4242;
/** The emulator's default branch (emulator/server.ts initialState). */
const DEFAULT_BRANCH_ID = 101;
const PUBLIC_URLS = { api: "https://stream.keboola.local", in: "https://stream-in.keboola.local" };
/**
 * How long the emulator's tasks take by default. The real service finishes a task that only
 * changes definitions before the harness's next request (source/list-source-versions sends a
 * second settings PATCH right after the first and gets 202), so tasks are done by the next
 * request. A task that provisions Storage takes the real service longer: the one step that relies
 * on that (sink/create-013-duplicite-creation 004) then differs.
 */
const DEFAULT_TASK_MS = 0;
/** A repeated request (`repeat.until`) waits this long between tries (the harness: 3 s). */
const REPEAT_WAIT_MS = 5;

interface StepResult {
  step: string;
  ok: boolean;
  detail?: string;
  actualStatus: number;
  actualBody: string;
}

/** The response body as the harness compares it: a JSON object re-encoded with 2-space indent. */
function harnessBody(text: string): { ok: true; value: Record<string, unknown>; text: string } | { ok: false; error: string } {
  if (text === "") return { ok: true, value: {}, text: "{}" };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { ok: false, error: `not JSON: ${JSON.stringify(text.slice(0, 120))}` };
  }
  if (!isRecord(value)) return { ok: false, error: `not a JSON object: ${text.slice(0, 120)}` };
  return { ok: true, value, text: goJSON(value, true) };
}

/** govaluate, as far as the recorded cases use it: `<field> == '<text>'` or `!=`. */
function untilHolds(expr: string, body: Record<string, unknown>): boolean {
  const m = /^\s*([A-Za-z_][\w.]*)\s*(==|!=)\s*'([^']*)'\s*$/.exec(expr);
  if (!m) throw new Error(`unsupported repeat condition: ${expr}`);
  const value = body[m[1]];
  return m[2] === "==" ? value === m[3] : value !== m[3];
}

/** The value at one step of a dotted path: an object's key or an array's index ("0", "1", ...). */
function child(v: unknown, key: string): unknown {
  if (Array.isArray(v)) {
    const items: unknown[] = v;
    return /^(0|[1-9]\d*)$/.test(key) ? items[Number(key)] : undefined;
  }
  return isRecord(v) ? v[key] : undefined;
}

/** `<<step:response.a.b>>` in a path: the path of the URL at `a.b` of that step's response. */
function resolvePath(path: string, responses: Map<string, Record<string, unknown>>): string {
  const m = /<<(.+):response\.(.+)>>/.exec(path);
  if (!m) return path;
  const response = responses.get(m[1]);
  if (!response) throw new Error(`invalid request reference in the request path: ${path}`);
  let v: unknown = response;
  for (const key of m[2].split(".")) v = child(v, key);
  if (typeof v !== "string") throw new Error(`invalid response reference in the request path: ${path}`);
  return decodeURIComponent(new URL(v).pathname);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function runStep(em: Emulator, step: RecordedStep, responses: Map<string, Record<string, unknown>>): Promise<StepResult> {
  const req = step.request;
  let path: string;
  try {
    path = resolvePath(req.path, responses);
  } catch (e) {
    return { step: step.name, ok: false, detail: e instanceof Error ? e.message : String(e), actualStatus: 0, actualBody: "" };
  }
  const timeoutMs = (req.repeat?.timeout ?? 60) * 1000;
  const start = Date.now();
  for (;;) {
    const res = await goRequest(em.urls.stream, req.method, path, req.headers ?? {}, req.body);
    const body = harnessBody(res.body);
    if (!body.ok) return { step: step.name, ok: false, detail: body.error, actualStatus: res.status, actualBody: res.body };
    responses.set(step.name, body.value);
    if (req.repeat?.until && !untilHolds(req.repeat.until, body.value) && Date.now() - start < timeoutMs) {
      await sleep(REPEAT_WAIT_MS);
      continue;
    }
    const statusOk = res.status === step.expectedCode;
    const bodyOk = wildcardsMatch(step.expectedBody, body.text);
    let detail: string | undefined;
    if (!statusOk) detail = `status ${res.status}, recorded ${step.expectedCode}`;
    if (!bodyOk) {
      const d = firstDifference(step.expectedBody, body.text);
      const line = d ? `line ${d.line}: recorded ${d.expected.trim()} | got ${d.actual.trim()}` : "body differs";
      detail = detail ? `${detail}; ${line}` : line;
    }
    return { step: step.name, ok: statusOk && bodyOk, detail, actualStatus: res.status, actualBody: body.text };
  }
}

async function replayCase(c: RecordedCase, taskMs: number): Promise<StepResult[]> {
  const em = await startEmulator({
    token: TOKEN,
    port: 0,
    host: "127.0.0.1",
    projectId: PROJECT_ID,
    taskDurationMs: taskMs,
    streamPublicUrls: PUBLIC_URLS,
  });
  try {
    if (em.state.project.defaultBranchId !== DEFAULT_BRANCH_ID) throw new Error("the emulator's default branch id changed");
    applyEtcdSnapshot(em.context, c.initialEtcd);
    const responses = new Map<string, Record<string, unknown>>();
    const results: StepResult[] = [];
    for (const step of c.steps) results.push(await runStep(em, step, responses));
    return results;
  } finally {
    await em.close();
  }
}

/** The replay, as the fidelity runner's `stream` suite and as this script run directly. */
export const streamReplayCommand = command({
  name: "fidelity stream",
  summary: "keboola-as-code's recorded Stream API cases replayed against the emulator, step by step",
  usage: [
    "npm run fidelity -- stream --kac <keboola-as-code tree> [--case <regex>] [--full] [--task-ms <n>]",
    "node dist/scripts/stream-replay.js --kac <keboola-as-code tree> [--case <regex>] [--full] [--task-ms <n>]",
  ],
  options: {
    kac: { type: "string", value: "<tree>", help: "a keboola-as-code tree (its test/stream/api cases are replayed)" },
    case: { type: "string", value: "<regex>", help: "only the cases whose name (<group>/<case>) matches" },
    full: { type: "boolean", help: "print the whole answer of a mismatching step" },
    "task-ms": { type: "string", value: "<n>", help: `how long the emulator's tasks take (default ${DEFAULT_TASK_MS}: done by the next request)` },
  },
  exitCodes: "exit code: 0 replayed (the counts say how many steps matched), 1 an error (wrong arguments too)",
  async run({ values }) {
    const taskMs = values["task-ms"] === undefined ? DEFAULT_TASK_MS : Number(values["task-ms"]);
    if (!(taskMs >= 0)) throw new UsageError(`--task-ms must be a number of milliseconds, got "${values["task-ms"]}"`);
    if (!values.kac) throw new UsageError("--kac <keboola-as-code tree> is missing");
    await replay(values.kac, { taskMs, filter: values.case === undefined ? undefined : new RegExp(values.case), full: values.full });
    return 0;
  },
});

/** Replays the cases of the tree `kac`, printing per case and in total how many steps match. */
async function replay(kac: string, o: { taskMs: number; filter?: RegExp; full: boolean }): Promise<void> {
  const { taskMs, filter } = o;
  // Piped into `head`, the report may be cut short: that is no failure.
  process.stdout.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code === "EPIPE") process.exit(0);
    throw e;
  });
  const env = {
    TEST_KBC_PROJECT_ID: String(PROJECT_ID),
    TEST_DEFAULT_BRANCH_ID: String(DEFAULT_BRANCH_ID),
    TEST_KBC_STORAGE_API_TOKEN: TOKEN,
  };
  const cases = loadCases(kac, env).filter((c) => !filter || filter.test(c.name));
  let total = 0;
  let matched = 0;
  let casesOk = 0;
  const unjudged: string[] = [];
  for (const c of cases) {
    const results = await replayCase(c, taskMs);
    const ok = results.filter((r) => r.ok).length;
    total += results.length;
    matched += ok;
    if (ok === results.length) casesOk++;
    process.stdout.write(`${ok === results.length ? "ok  " : "FAIL"} ${c.name}  ${ok}/${results.length}\n`);
    for (const r of results.filter((x) => !x.ok)) {
      process.stdout.write(`       ${r.step}: ${r.detail}\n`);
      if (o.full) process.stdout.write(`${r.actualBody.replace(/^/gm, "         | ")}\n`);
    }
    for (const f of c.unjudgedFiles) unjudged.push(`${c.name}/${f}`);
  }
  const pct = total === 0 ? 0 : (100 * matched) / total;
  process.stdout.write(`\ncases: ${casesOk}/${cases.length} fully matched\nsteps: ${matched}/${total} matched (${pct.toFixed(2)}%)\n`);
  if (unjudged.length > 0) {
    process.stdout.write(`not judged (the emulator has no etcd and no server log): ${unjudged.join(", ")}\n`);
  }
}

// Run directly (node dist/scripts/stream-replay.js); scripts/fidelity/index.ts runs it as its stream suite.
if (require.main === module) runMain(streamReplayCommand);
