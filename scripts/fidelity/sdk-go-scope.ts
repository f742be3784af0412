import * as fs from "node:fs";
import * as path from "node:path";

// Which of keboola-sdk-go's pkg/keboola tests the emulator can be judged by, decided from each
// test function's source, so that the split is the same on every run whatever passes. A test is
// out of scope when it asks for what the emulated project is not or does not have:
//   - a BigQuery project, ABS or GCS staging (the projects file has Snowflake + S3 projects only,
//     as the emulator presents itself; go-utils would fail the test with "no compatible test
//     project");
//   - a real warehouse workspace (Storage `POST .../workspaces`, a configuration's workspace:
//     a Snowflake schema with credentials) or an SQL editor session (a warehouse session);
//   - the public stack itself: a real HTTP client aimed at connection.keboola.com, asserting its
//     service URLs (TestIndexComponents_WithoutToken). These are also passed to go test -skip,
//     since there is no network here;
//   - a t.Skip at the top of the function: the suite itself does not run it.
// Rules are tried in this order; the first that matches gives the reason.

export interface TestScope {
  /** Top-level test function name. */
  name: string;
  file: string;
  /** Undefined: in scope. */
  outOfScope?: string;
  /** Whether the runner must not run it at all (go test -skip). */
  skip: boolean;
}

interface Rule {
  matches: (body: string) => boolean;
  reason: (body: string) => string;
  skip?: boolean;
}

const has = (re: RegExp) => (body: string) => re.test(body);

const RULES: Rule[] = [
  {
    // `t.Skip(` as a statement of the function itself (one tab deep), not inside a branch.
    matches: has(/^\tt\.Skip(?:Now)?\(/m),
    reason: (b) => `skipped by the suite (t.Skip${/^\tt\.Skip\("([^"]*)"/m.exec(b)?.[1] ? `: ${/^\tt\.Skip\("([^"]*)"/m.exec(b)?.[1]}` : ""})`,
  },
  {
    matches: (b) => /connection\.keboola\.com/.test(b) && /client\.NewTestClient\(\)/.test(b) && !/NewMockedClient|httpmock/.test(b),
    reason: () => "calls the public stack connection.keboola.com (no network here)",
    skip: true,
  },
  { matches: has(/WithBigQueryBackend\(\)/), reason: () => "needs a BigQuery project" },
  { matches: has(/WithStagingStorageABS\(\)/), reason: () => "needs ABS staging storage" },
  { matches: has(/WithStagingStorageGCS\(\)/), reason: () => "needs GCS staging storage" },
  { matches: has(/EditorSession/), reason: () => "needs an SQL editor session (a real warehouse session)" },
  { matches: has(/StorageWorkspaceCreateRequest\(|CreateConfigWorkspaceRequest\(/), reason: () => "needs a real warehouse workspace (Snowflake)" },
];

/** Top-level `func TestX(t *testing.T) {` ... `}` bodies of one Go file. */
export function testFunctions(source: string): { name: string; body: string }[] {
  const out: { name: string; body: string }[] = [];
  const re = /^func (Test\w+)\(\w+ \*testing\.T\) \{$/gm;
  for (let m = re.exec(source); m; m = re.exec(source)) {
    const end = source.indexOf("\n}\n", m.index);
    out.push({ name: m[1], body: source.slice(m.index, end < 0 ? undefined : end + 2) });
  }
  return out;
}

export function classify(name: string, body: string): Pick<TestScope, "outOfScope" | "skip"> {
  for (const r of RULES) if (r.matches(body)) return { outOfScope: r.reason(body), skip: r.skip ?? false };
  return { skip: false };
}

/** Every top-level test of the package directory, with its scope. */
export function scopeOfPackage(dir: string): Map<string, TestScope> {
  const out = new Map<string, TestScope>();
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith("_test.go")).sort()) {
    for (const fn of testFunctions(fs.readFileSync(path.join(dir, file), "utf8"))) out.set(fn.name, { name: fn.name, file, ...classify(fn.name, fn.body) });
  }
  return out;
}

/** Whether a test function gets a test project (and so talks to the emulator). */
export function usesProject(dir: string, scope: TestScope): boolean {
  const body = testFunctions(fs.readFileSync(path.join(dir, scope.file), "utf8")).find((f) => f.name === scope.name)?.body ?? "";
  return /APIClientFor\w+Project|GetTestProject/.test(body);
}
