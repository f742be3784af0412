import * as fs from "node:fs";
import * as path from "node:path";
import { makeCerts } from "./lib/certs";
import { compileTestBinary, runTestBinary, showCommand } from "./lib/go-test";
import { parseGoTestJson, type TestRecord } from "./lib/go-test-json";
import { readRequestLog } from "./lib/request-log";
import { goSuiteOptions, goSuiteValues, type GoSuiteOptions } from "./lib/options";
import { command, UsageError } from "../../provider/cli/command";
import { startStack } from "./lib/stack";
import { writeFailureReport } from "./lib/reports";
import { firstFailureLine, groupCauses, normalize } from "./lib/symptoms";
import { beNice, createWorkDir, makeLog } from "./lib/workdir";
import { scopeOfPackage, usesProject, type TestScope } from "./sdk-go-scope";

// keboola/keboola-sdk-go's own tests of pkg/keboola (v2.21.0) against the emulator. The SDK is
// the Go client Keboola's own tools are built on (kbc, the Stream service); its tests of
// pkg/keboola get their projects from go-utils `testproject` as kbc's e2e suite does, so they run
// unchanged against emulators described in a projects file (lib/projects.ts), behind TLS fronts
// (lib/storage-front.ts), with the S3 bridge for object transfers (lib/s3-bridge.ts). Tests that
// need what the emulated project is not (BigQuery, ABS/GCS, a real warehouse, the public stack)
// are counted apart as out of scope, decided from their source (sdk-go-scope.ts).

const IMPORT_PATH = "github.com/keboola/keboola-sdk-go/v2/pkg/keboola";

interface Options extends GoSuiteOptions {
  sdk: string;
}

type Verdict = "pass" | "fail" | "skip" | "unfinished" | "not run";

interface Row {
  name: string;
  scope?: TestScope;
  record?: TestRecord;
  verdict: Verdict;
}

const pad = (s: string | number, w: number) => String(s).padEnd(w);

/** One line per test: verdict, name, seconds, and why it failed or is out of scope. */
function testLine(r: Row): string {
  const secs = r.record ? `${r.record.elapsed.toFixed(1)}s` : "";
  if (r.scope?.outOfScope) return `${pad("OUT", 5)} ${pad(r.name, 52)} ${pad(secs, 7)} out of scope: ${r.scope.outOfScope}${r.record ? ` [go: ${r.verdict}]` : ""}`;
  const why = ["fail", "unfinished", "skip"].includes(r.verdict) ? firstFailureLine(r.record?.output.join("") ?? "") : "";
  return `${pad(r.verdict.toUpperCase(), 5)} ${pad(r.name, 52)} ${pad(secs, 7)} ${why}`.trimEnd();
}

export const sdkGoSuite = command({
  name: "fidelity sdk-go",
  summary: "keboola-sdk-go's tests of pkg/keboola, in scope and out of scope counted apart",
  usage: ["npm run fidelity -- sdk-go --sdk <keboola-sdk-go tree at v2.21.0>", "    [--parallel 2] [--timeout 20m] [--run <go -run regex>] [--work <dir>] [--no-s3-bridge] [--keep]"],
  options: { sdk: { type: "string", value: "<tree>", help: "a keboola-sdk-go tree at v2.21.0" }, ...goSuiteOptions("20m") },
  exitCodes: "exit code: 0 every in-scope test passed, 1 a test failed, or an error (wrong arguments too)",
  run({ values }) {
    if (!values.sdk) throw new UsageError("--sdk <keboola-sdk-go tree> is missing");
    return runSdkGo({ sdk: path.resolve(values.sdk), ...goSuiteValues(values) });
  },
});

async function runSdkGo(o: Options): Promise<number> {
  const pkgDir = path.join(o.sdk, "pkg", "keboola");
  if (!fs.existsSync(path.join(pkgDir, "test.go"))) throw new Error(`${pkgDir}/test.go not found: --sdk must be a keboola-sdk-go tree`);
  beNice();
  const started = Date.now();
  const log = makeLog("sdk-go");
  const work = createWorkDir("fidelity-sdk-go", o.work);
  log(`work dir ${work}`);

  const scope = scopeOfPackage(pkgDir);
  const skipNames = [...scope.values()].filter((s) => s.skip).map((s) => s.name);

  // GOWORK=off: the tree's go.work also uses ./v2/transfer, which requires keboola-sdk-go/v2
  // v2.18.0, and resolving that module graph needs a module version the proxy may not serve.
  // pkg/keboola does not import the transfer module, so the main module alone builds it.
  const binary = path.join(work, "keboola.test");
  log(`compiling the test binary: GOWORK=off go test -c -p 2 -o ${binary} ./pkg/keboola/ (cwd ${o.sdk}) ...`);
  const buildSecs = compileTestBinary({ cwd: o.sdk, pkg: "./pkg/keboola/", out: binary, flags: ["-p", "2"], env: { ...process.env, GOWORK: "off" } });
  log(`compiled in ${buildSecs.toFixed(0)} s`);

  const tls = makeCerts(path.join(work, "tls"), "fidelity sdk-go local CA");
  // No harness shim here: the harness (project cleaning) is the SDK under test itself.
  const stack = await startStack({ work, suite: "sdk-go", tokenPrefix: "sdk-go", parallel: o.parallel, tls, hooks: [], s3Bridge: o.s3Bridge, log });
  const { requestLog, env } = stack;
  delete env.TEST_HTTP_CLIENT_VERBOSE;

  const testArgs = ["-test.v=test2json", "-test.count=1", `-test.parallel=${o.parallel}`, `-test.timeout=${o.timeout}`];
  if (o.run) testArgs.push(`-test.run=${o.run}`);
  if (skipNames.length) testArgs.push(`-test.skip=^(${skipNames.join("|")})$`);
  log(`running: go tool test2json -t -p ${IMPORT_PATH} ${binary} ${showCommand(testArgs)}  (cwd ${pkgDir})`);
  const jsonFile = path.join(work, "go-test.json");
  const tGo = Date.now();
  let done = 0;
  const code = await runTestBinary({
    cwd: pkgDir,
    binary,
    importPath: IMPORT_PATH,
    testArgs,
    env,
    jsonFile,
    stderrFile: path.join(work, "go-test.stderr"),
    onEvent: (e) => {
      if (!e.Test || e.Test.includes("/") || !["pass", "fail", "skip"].includes(e.Action)) return;
      done++;
      if (e.Action === "fail" || done % 10 === 0) log(`${done} done; ${e.Action} ${e.Test} (${e.Elapsed}s)`);
    },
  });
  const goSecs = (Date.now() - tGo) / 1000;
  await stack.stopRecording();

  const run = parseGoTestJson(jsonFile);
  const topLevel = new Map([...run.tests].filter(([name]) => !name.includes("/")));
  const names = o.run ? [...topLevel.keys()] : [...new Set([...scope.keys(), ...topLevel.keys()])];
  const rows: Row[] = names.sort().map((name) => {
    const record = topLevel.get(name);
    return { name, scope: scope.get(name), record, verdict: record ? record.status : "not run" };
  });

  // Reports: per-test failures with the non-2xx answers of their time window, causes, endpoints.
  const failedInScope = rows.filter((r) => !r.scope?.outOfScope && r.record && (r.verdict === "fail" || r.verdict === "unfinished"));
  writeFailureReport({ work, tests: failedInScope.map((r) => [r.name, r.record!]), requests: readRequestLog(requestLog.file), client: () => "sdk" });
  fs.writeFileSync(path.join(work, "causes.txt"), groupCauses(failedInScope.map((r) => [r.name, r.record!]), (t) => normalize(firstFailureLine(t)) || "unknown"));

  const lines: string[] = [];
  const inScope = rows.filter((r) => !r.scope?.outOfScope);
  const out = rows.filter((r) => r.scope?.outOfScope);
  lines.push("in scope:");
  for (const r of inScope) lines.push(testLine(r));
  lines.push("", "out of scope:");
  for (const r of out) lines.push(testLine(r));
  lines.push("");
  const passed = inScope.filter((r) => r.verdict === "pass").length;
  const withProject = inScope.filter((r) => r.scope && usesProject(pkgDir, r.scope));
  lines.push(`against the emulator (tests that get a test project): ${withProject.filter((r) => r.verdict === "pass").length}/${withProject.length} passed; ` +
    `offline (mocked or pure unit tests): ${passed - withProject.filter((r) => r.verdict === "pass").length}/${inScope.length - withProject.length} passed`);
  // By reason, without a t.Skip's own message, so that the suite's skips count as one reason.
  const reasons = new Map<string, number>();
  for (const r of out) {
    const reason = r.scope!.outOfScope!.replace(/ \(t\.Skip.*\)$/, "");
    reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
  }
  lines.push(`out of scope: ${[...reasons.entries()].map(([k, n]) => `${n} ${k}`).join("; ")}`);
  if (run.buildFailed) lines.push("go test: BUILD FAILED (see go-test.json / go-test.stderr)");
  // A panic or the timeout ends the whole binary: the tests it cut short show as unfinished.
  const pkgFail = run.packageOutput.filter((l) => /^panic:|timed out/.test(l));
  if (pkgFail.length) lines.push(`package output: ${pkgFail.slice(0, 3).map((l) => l.trim()).join(" | ")}`);
  lines.push(`test binary: compile ${buildSecs.toFixed(0)} s, run ${goSecs.toFixed(0)} s (exit ${code}); total ${((Date.now() - started) / 1000).toFixed(0)} s; ` +
    `artifacts in ${work} (go-test.json, causes.txt, failures.md, endpoints.txt, requests.jsonl)`);
  lines.push(`sdk-go: ${passed}/${inScope.length} in-scope tests passed (${out.length} out of scope)`);
  fs.writeFileSync(path.join(work, "summary.txt"), lines.join("\n") + "\n");
  process.stdout.write(lines.join("\n") + "\n");

  stack.close({ keepCaKey: o.keep });
  return passed === inScope.length ? 0 : 1;
}
