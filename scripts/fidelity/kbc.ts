import * as fs from "node:fs";
import * as path from "node:path";
import { binaryHash, ensureKbc, writeWrapper } from "./kbc-binary";
import { isWhatIf, WHAT_IFS, whatIfHook, type WhatIf } from "./kbc-what-ifs";
import { makeCerts } from "./lib/certs";
import { compileTestBinary, runTestBinary, showCommand } from "./lib/go-test";
import { parseGoTestJson, type TestRecord } from "./lib/go-test-json";
import { harnessShim } from "./lib/harness-shim";
import { readRequestLog } from "./lib/request-log";
import { goSuiteOptions, goSuiteValues, type GoSuiteOptions } from "./lib/options";
import { command, UsageError, type Values } from "../../provider/cli/command";
import { startStack } from "./lib/stack";
import { writeFailureReport } from "./lib/reports";
import type { FrontHook } from "./lib/storage-front";
import { firstSymptom, groupCauses } from "./lib/symptoms";
import { beNice, createWorkDir, makeLog } from "./lib/workdir";
import { mapPublicHost, PUBLIC_HOST } from "./public-host";

// keboola-as-code's own CLI end-to-end suite (test/cli, TestCliE2E: one folder per test with
// `args`, `initial-state.json`, expected stdout/stderr/code, `in/`, `out/`,
// `expected-state.json`) run unchanged with the real `kbc` against the emulator, counted per test
// group. Its harness (internal/pkg/utils/testhelper/runner) cleans a test project, seeds it, runs
// kbc, and compares the output, the working dir and a snapshot of the project; the emulators
// stand in for the test projects (lib/projects.ts). The keboola-as-code tree is only read, except
// that the harness keeps each test's working dir in test/cli/.out (unless --no-out-dir).
//
// The stand-ins of the earlier runner (events, metadata) are gone: the emulator serves both, so
// they could no longer answer anything. The harness shim is kept as a guard (lib/harness-shim.ts).

/**
 * Groups of test/cli that touch what the emulator serves (configurations, rows, branches,
 * buckets, tables, files, jobs, encryption). Templates, workspaces, dbt, llm, apps-proxy and the
 * purely local groups (help, version, environment, workflows) are left out.
 */
const IN_SCOPE = [
  "allow-target-env", "create", "diff", "encrypt", "fix-paths", "persist", "project-init",
  "pull", "push", "remote-create", "remote-file", "remote-job",
  "remote-table-detail", "remote-table-download", "remote-table-import", "remote-table-list",
  "remote-table-preview", "remote-table-unload", "remote-table-upload", "status", "validate",
];

const IMPORT_PATH = "github.com/keboola/keboola-as-code/test/cli";
/** kbc's own requests; everything else through the fronts is the harness. */
const isKbc = (userAgent: string) => userAgent.startsWith("keboola-cli");

interface Options extends GoSuiteOptions {
  kac: string;
  kbc?: string;
  groups?: string[];
  whatIfs: Set<WhatIf>;
  outDir: boolean;
  shim: boolean;
  publicHost: boolean;
}

const OPTIONS = {
  kac: { type: "string", value: "<tree>", help: "a keboola-as-code tree (its test/cli is run)" },
  kbc: { type: "string", value: "<binary>", help: "a kbc built from that tree (default: built with go build into the work dir)" },
  groups: { type: "string", value: "<group,...>", help: "only these test groups (default: the in-scope ones)" },
  "all-in-scope": { type: "boolean", help: "every in-scope group (also with --run)" },
  "what-if": { type: "string", value: `all|${WHAT_IFS.join(",")}`, help: "change one detail of an answer, to measure how many tests it alone decides" },
  "no-out-dir": { type: "boolean", help: "the harness keeps no test working dir in <kac>/test/cli/.out" },
  "no-shim": { type: "boolean", help: "without the harness shim (lib/harness-shim.ts)" },
  "no-public-host": { type: "boolean", help: "kbc's default stack is not mapped to emulator 0 (needs root otherwise)" },
  ...goSuiteOptions("40m"),
} as const;

function options(values: Values<typeof OPTIONS>): Options {
  if (!values.kac) throw new UsageError("--kac <keboola-as-code tree> is missing");
  const whatIfs = new Set<WhatIf>();
  for (const x of (values["what-if"] ?? "").split(",").map((y) => y.trim()).filter(Boolean)) {
    if (x === "all") for (const y of WHAT_IFS) whatIfs.add(y);
    else if (isWhatIf(x)) whatIfs.add(x);
    else throw new UsageError(`--what-if: unknown ${x} (${WHAT_IFS.join(", ")}, all)`);
  }
  const groups = values["all-in-scope"] ? IN_SCOPE : values.groups?.split(",").map((s) => s.trim()).filter(Boolean);
  return {
    ...goSuiteValues(values),
    kac: path.resolve(values.kac),
    kbc: values.kbc,
    groups: groups ?? (values.run ? undefined : IN_SCOPE),
    whatIfs,
    outDir: !values["no-out-dir"],
    shim: !values["no-shim"],
    publicHost: !values["no-public-host"],
  };
}

interface GroupCounts {
  run: number;
  pass: number;
  fail: number;
  skip: number;
  unfinished: number;
}

/** TestCliE2E/<group>/<name> records, keyed `<group>/<name>`. */
function cliTests(all: Map<string, TestRecord>): Map<string, TestRecord & { group: string }> {
  const out = new Map<string, TestRecord & { group: string }>();
  for (const [name, t] of all) {
    const parts = name.split("/");
    if (parts[0] !== "TestCliE2E" || parts.length !== 3) continue;
    out.set(`${parts[1]}/${parts[2]}`, { ...t, group: parts[1] });
  }
  return out;
}

function groupTable(tests: Map<string, TestRecord & { group: string }>): [string, GroupCounts][] {
  const groups = new Map<string, GroupCounts>();
  for (const t of tests.values()) {
    const g = groups.get(t.group) ?? { run: 0, pass: 0, fail: 0, skip: 0, unfinished: 0 };
    groups.set(t.group, g);
    if (t.status === "skip") {
      g.skip++;
      continue;
    }
    g.run++;
    if (t.status === "pass") g.pass++;
    else if (t.status === "fail") g.fail++;
    else g.unfinished++;
  }
  return [...groups.entries()].sort(([a], [b]) => a.localeCompare(b));
}

export const kbcSuite = command({
  name: "fidelity kbc",
  summary: "keboola-as-code's CLI end-to-end suite (test/cli) with the real kbc, counted per test group",
  usage: [
    "npm run fidelity -- kbc --kac <keboola-as-code tree> [--kbc <prebuilt kbc>]",
    `    [--groups pull,push,... | --all-in-scope] [--run '<raw -run regex>'] [--what-if all|${WHAT_IFS.join(",")}]`,
    "    [--parallel 2] [--timeout 40m] [--work <dir>] [--no-out-dir] [--no-shim] [--no-s3-bridge] [--no-public-host] [--keep]",
  ],
  options: OPTIONS,
  exitCodes: "exit code: 0 every in-scope test passed, 1 a test failed, or an error (wrong arguments too)",
  run: ({ values }) => runKbc(options(values)),
});

async function runKbc(o: Options): Promise<number> {
  if (!fs.existsSync(path.join(o.kac, "test", "cli"))) throw new Error(`${o.kac}/test/cli not found: --kac must be a keboola-as-code tree`);
  beNice();
  const started = Date.now();
  const log = makeLog("kbc");
  const work = createWorkDir("fidelity-kbc", o.work);
  log(`work dir ${work}`);

  const tls = makeCerts(path.join(work, "tls"), "fidelity kbc local CA", [PUBLIC_HOST]);
  const kbc = ensureKbc(o.kbc, o.kac, work, log);
  const hooks: FrontHook[] = [];
  if (o.shim) hooks.push(harnessShim((ua) => !isKbc(ua)));
  if (o.whatIfs.size) hooks.push(whatIfHook(o.whatIfs));
  const stack = await startStack({ work, suite: "kbc", tokenPrefix: "kbc-e2e", parallel: o.parallel, tls, hooks, s3Bridge: o.s3Bridge, log });
  const { slots, bridge, requestLog, credentials, env } = stack;
  const hostsFile = o.publicHost ? await mapPublicHost(work, { slot: 0, emulatorUrl: slots[0].url, tls, log: requestLog, credentials }, hooks, log) : undefined;
  const wrapper = writeWrapper(work, kbc, tls.caFile, bridge?.url, hostsFile);

  const runExpr = o.run ?? `^TestCliE2E$/^(${(o.groups ?? IN_SCOPE).map((g) => g.replace(/[^\w.*-]/g, "")).join("|")})$`;
  Object.assign(env, {
    TEST_BINARY_CLI: wrapper,
    TEST_BINARY_CLI_HASH: binaryHash(kbc),
    KBC_VERSION_CHECK: "false",
    // The harness then logs "TestProject[<id>][<test>]", which ties requests to tests.
    TEST_VERBOSE: "true",
    // The harness keeps each test's working dir (with actual-state.json) in <kac>/test/cli/.out.
    TEST_CREATE_OUT_DIR: o.outDir ? "true" : "false",
  });

  const binary = path.join(work, "cli.test");
  log(`compiling the test binary: go test -c -o ${binary} ./test/cli (cwd ${o.kac}) ...`);
  const buildSecs = compileTestBinary({ cwd: o.kac, pkg: "./test/cli", out: binary });
  log(`compiled in ${buildSecs.toFixed(0)} s`);
  const testArgs = [`-test.run=${runExpr}`, "-test.v=test2json", "-test.count=1", `-test.parallel=${o.parallel}`, `-test.timeout=${o.timeout}`];
  log(`running: go tool test2json -t -p ${IMPORT_PATH} ${binary} ${showCommand(testArgs)}  (cwd ${o.kac}/test/cli)`);
  const jsonFile = path.join(work, "go-test.json");
  const tGo = Date.now();
  let done = 0;
  const code = await runTestBinary({
    cwd: path.join(o.kac, "test", "cli"),
    binary,
    importPath: IMPORT_PATH,
    testArgs,
    env,
    jsonFile,
    stderrFile: path.join(work, "go-test.stderr"),
    onEvent: (e) => {
      if (!e.Test || e.Test.split("/").length < 3 || !["pass", "fail", "skip"].includes(e.Action)) return;
      done++;
      if (e.Action === "fail" || done % 20 === 0) log(`${done} done; ${e.Action} ${e.Test.slice("TestCliE2E/".length)} (${e.Elapsed}s)`);
    },
  });
  const goSecs = (Date.now() - tGo) / 1000;
  await stack.stopRecording();

  const run = parseGoTestJson(jsonFile, /TestProject\[/);
  const tests = cliTests(run.tests);
  const projectIds = slots.map((s) => s.projectId);
  const shims = writeFailureReport({
    work,
    tests: [...tests],
    requests: readRequestLog(requestLog.file),
    // The harness logs "TestProject[<id>]..." lines: the project, hence the slot, of a test.
    slotOf: (text) => {
      const m = /TestProject\[(\d+)\]/.exec(text);
      const i = m ? projectIds.indexOf(Number(m[1])) : -1;
      return i < 0 ? undefined : i;
    },
    client: (r) => (isKbc(r.ua ?? "") ? "kbc" : "harness"),
  });
  fs.writeFileSync(path.join(work, "causes.txt"), groupCauses(tests, (text) => firstSymptom(text.split("\n").filter((l) => !l.includes("TestProject[")).join("\n"))));

  const rows = groupTable(tests);
  const pad = (s: string | number, w: number) => String(s).padEnd(w);
  const lines = [`${pad("group", 24)} ${pad("run", 5)} ${pad("passed", 7)} ${pad("failed", 7)} ${pad("skipped", 8)}`];
  const total = { run: 0, pass: 0, fail: 0, skip: 0 };
  for (const [g, c] of rows) {
    lines.push(`${pad(g, 24)} ${pad(c.run, 5)} ${pad(c.pass, 7)} ${pad(c.fail + (c.unfinished ? `+${c.unfinished}?` : ""), 7)} ${pad(c.skip, 8)}`);
    total.run += c.run;
    total.pass += c.pass;
    total.fail += c.fail + c.unfinished;
    total.skip += c.skip;
  }
  lines.push(`${pad("total", 24)} ${pad(total.run, 5)} ${pad(total.pass, 7)} ${pad(total.fail, 7)} ${pad(total.skip, 8)}`);
  if (run.buildFailed) lines.push("go test: BUILD FAILED (see go-test.json / go-test.stderr)");
  if (shims.size) lines.push(`answered or changed by the runner instead of the emulator: ${[...shims.entries()].map(([k, v]) => `${k} ${v}`).join(", ")}`);
  lines.push(`test binary: compile ${buildSecs.toFixed(0)} s, run ${goSecs.toFixed(0)} s (exit ${code}); total ${((Date.now() - started) / 1000).toFixed(0)} s; ` +
    `artifacts in ${work} (go-test.json, causes.txt, failures.md, endpoints.txt, requests.jsonl)`);
  lines.push(`kbc-e2e: ${total.pass}/${total.run} tests (${rows.map(([g]) => g).join(",")})`);
  fs.writeFileSync(path.join(work, "summary.txt"), lines.join("\n") + "\n");
  process.stdout.write(lines.join("\n") + "\n");

  stack.close({ keepCaKey: o.keep });
  return code === 0 ? 0 : 1;
}
