// Transformation code kept in files beside keboola.yaml (fn::readFile), with the real Pulumi CLI
// through the root project: a Snowflake transformation's SQL file deployed as the statements kbc
// would push (keboola-as-code splits a code file with internal/pkg/sql Split), a Python one as
// one script; an edit of the SQL file is a change of that configuration alone in the preview, and
// `up` stores the new statements; a file that cannot be read is refused at preview, with its
// position, before anything is read or written.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startEmulator, type Emulator } from "../../emulator/server";
import { describeResult, type RunResult } from "./helpers/pulumi";
import { makeRootProject, type RootProject } from "../../scripts/lib/root-project";
import { keboolaPulumi, uiClient } from "./helpers/drift";

const MANIFEST = `config:
  schema: { type: string, default: analytics }
configurations:
  orders:
    componentId: keboola.snowflake-transformation
    configId: orders
    name: Orders
    configuration:
      parameters:
        blocks:
          - name: Load
            codes:
              - name: Load orders
                script: { fn::readFile: transformations/orders/001-load.sql }
  scores:
    componentId: keboola.python-transformation-v2
    configId: scores
    name: Scores
    configuration:
      parameters:
        blocks:
          - name: Main
            codes:
              - name: Score
                script: { fn::readFile: transformations/scores/main.py }
`;

// As kbc writes a code file (statements with an empty line between them), with a `;` in a
// string and in a comment that must not split, and a value of config:.
const SQL = `CREATE TABLE "\${schema}"."orders" AS SELECT * FROM "in.c-shop"."orders"; -- the copy

-- totals; per customer
CREATE TABLE "totals" AS SELECT "customer", SUM("amount") AS "total" FROM "orders" WHERE "note" <> 'a;b' GROUP BY 1;
`;

const PYTHON = `import csv

with open("in/tables/orders.csv") as f:
    print(sum(1 for _ in csv.reader(f)))
`;

const ORDERS = "101/keboola.snowflake-transformation/orders";
const SCORES = "101/keboola.python-transformation-v2/scores";

type Inputs = Record<string, unknown>;

/** Steps of `pulumi preview --json` by resource name: the op, and the inputs whose value changes (old state to new). */
function previewSteps(res: RunResult): Record<string, { op: string; changed: string[]; inputs: Inputs }> {
  const out = JSON.parse(res.stdout) as { steps?: Array<{ op: string; urn: string; oldState?: { inputs: Inputs }; newState?: { inputs: Inputs } }> };
  return Object.fromEntries(
    (out.steps ?? []).map((s) => {
      const before = s.oldState?.inputs ?? {};
      const after = s.newState?.inputs ?? {};
      const changed = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
      return [s.urn.split("::").pop() ?? s.urn, { op: s.op, changed, inputs: after }];
    }),
  );
}

function scriptOf(emu: Emulator, key: string): unknown {
  const configuration = emu.state.storage.configs[key]?.configuration as { parameters: { blocks: Array<{ codes: Array<{ script: unknown }> }> } } | undefined;
  return configuration?.parameters.blocks[0].codes[0].script;
}

describe("e2e: transformation code in files (fn::readFile)", () => {
  let emu: Emulator;
  let root: RootProject;
  let dir: string;
  let manifest: string;
  const write = (rel: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  };

  beforeAll(async () => {
    emu = await startEmulator({ token: "master", taskDurationMs: 20 });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "code-files-e2e-"));
    manifest = path.join(dir, "keboola.yaml");
    write("transformations/orders/001-load.sql", SQL);
    write("transformations/scores/main.py", PYTHON);
    root = await makeRootProject({ prefix: "code-files-e2e", host: emu.url, token: "master", manifest });
  }, 300_000);

  afterAll(async () => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
    await root?.cleanup();
    await emu?.close();
  });

  it("refuses a missing file, a path out of the project and a directory at preview, at their positions, reading and writing nothing", async () => {
    fs.mkdirSync(path.join(dir, "transformations", "folder.sql"), { recursive: true });
    const text = MANIFEST.replace("transformations/scores/main.py", "../main.py")
      .replace("transformations/orders/001-load.sql", "transformations/orders/002-missing.sql")
      .concat(`  folder:
    componentId: keboola.snowflake-transformation
    name: Folder
    configuration: { parameters: { blocks: [{ name: B, codes: [{ name: C, script: { fn::readFile: transformations/folder.sql } }] }] } }
`);
    fs.writeFileSync(manifest, text);
    emu.clearRequests();
    const res = await root.pulumi(["preview"], { timeoutMs: 300_000 });
    expect(res.code).not.toBe(0);
    const at = (needle: string) => {
      const before = text.slice(0, text.indexOf(needle)).split("\n");
      return `${manifest}:${before.length}:${before[before.length - 1].length + 1}`;
    };
    const script = (key: string) => `configurations.${key}.configuration.parameters.blocks[0].codes[0].script`;
    expect(res.stdout).toContain(`3 problems in the manifest, nothing was deployed`);
    expect(res.stdout).toContain(`${at("transformations/orders/002-missing.sql")}: ${script("orders")}: fn::readFile: "transformations/orders/002-missing.sql" does not exist`);
    expect(res.stdout).toContain(`${at("../main.py")}: ${script("scores")}: fn::readFile: "../main.py" is outside the project directory ${dir}`);
    expect(res.stdout).toContain(`${at("transformations/folder.sql")}: ${script("folder")}: fn::readFile: "transformations/folder.sql" is a directory: name a file in it`);
    expect(emu.requests()).toEqual([]);
  }, 300_000);

  it("refuses a ${name} a file gets wrong at its line in the file", async () => {
    write("transformations/orders/typo.sql", `SELECT 1;\nSELECT '\${schemo}';\n`);
    fs.writeFileSync(manifest, MANIFEST.replace("001-load.sql", "typo.sql"));
    emu.clearRequests();
    const res = await root.pulumi(["preview"], { timeoutMs: 300_000 });
    expect(res.code).not.toBe(0);
    expect(res.stdout).toContain(`${path.join(dir, "transformations/orders/typo.sql")}:2:9: configurations.orders.configuration.parameters.blocks[0].codes[0].script[1]: \${schemo} is not declared`);
    expect(emu.requests()).toEqual([]);
  }, 300_000);

  it("deploys the SQL file as the statements kbc pushes and the Python file as one script; the next preview is clean", async () => {
    fs.writeFileSync(manifest, MANIFEST);
    const up = await root.pulumi(["up", "--yes", "--skip-preview"], { timeoutMs: 300_000 });
    expect(up.code, describeResult(up)).toBe(0);
    expect(scriptOf(emu, ORDERS)).toEqual([
      `CREATE TABLE "analytics"."orders" AS SELECT * FROM "in.c-shop"."orders";`,
      `-- the copy\n\n-- totals; per customer\nCREATE TABLE "totals" AS SELECT "customer", SUM("amount") AS "total" FROM "orders" WHERE "note" <> 'a;b' GROUP BY 1;`,
    ]);
    expect(scriptOf(emu, SCORES)).toEqual([PYTHON.trimEnd()]);
    const preview = await root.pulumi(["preview", "--expect-no-changes"], { timeoutMs: 300_000 });
    expect(preview.code, describeResult(preview)).toBe(0);
  }, 600_000);

  it("an edit of the SQL file changes that configuration alone; up stores the statements as kbc splits them; the next preview is clean", async () => {
    write("transformations/orders/001-load.sql", `${SQL}\nDELETE FROM "totals" WHERE "total" = 0;\n`);
    const json = await root.pulumi(["preview", "--json"], { timeoutMs: 300_000 });
    expect(json.code, describeResult(json)).toBe(0);
    const steps = previewSteps(json);
    expect(Object.entries(steps).filter(([, s]) => s.op !== "same").map(([name]) => name)).toEqual(["orders"]);
    expect(steps.orders.op).toBe("update");
    expect(steps.orders.changed).toEqual(["configuration"]);
    // (`--json` lists the steps that change something, and the stack.)
    expect(steps.scores).toBeUndefined();
    expect((JSON.parse(json.stdout) as { changeSummary: Record<string, number> }).changeSummary).toEqual({ same: 2, update: 1 });
    const statements = [
      `CREATE TABLE "analytics"."orders" AS SELECT * FROM "in.c-shop"."orders";`,
      `-- the copy\n\n-- totals; per customer\nCREATE TABLE "totals" AS SELECT "customer", SUM("amount") AS "total" FROM "orders" WHERE "note" <> 'a;b' GROUP BY 1;`,
      `DELETE FROM "totals" WHERE "total" = 0;`,
    ];
    expect(steps.orders.inputs.configuration).toEqual({ parameters: { blocks: [{ name: "Load", codes: [{ name: "Load orders", script: statements }] }] } });

    emu.clearRequests();
    const up = await root.pulumi(["up", "--yes", "--skip-preview"], { timeoutMs: 300_000 });
    expect(up.code, describeResult(up)).toBe(0);
    expect(emu.writes().map((w) => `${w.method} ${w.path}`)).toEqual(["PUT /v2/storage/branch/default/components/keboola.snowflake-transformation/configs/orders"]);
    expect(scriptOf(emu, ORDERS)).toEqual(statements);
    const preview = await root.pulumi(["preview", "--expect-no-changes"], { timeoutMs: 300_000 });
    expect(preview.code, describeResult(preview)).toBe(0);
  }, 600_000);

  it("a code changed in the UI: drift names the file to edit, pull leaves the manifest and the file byte for byte", async () => {
    const ui = uiClient(emu.url, "master");
    const live = await ui.storage.getConfig("default", "keboola.snowflake-transformation", "orders");
    const configuration = structuredClone(live.configuration) as { parameters: { blocks: Array<{ codes: Array<{ script: string[] }> }> } };
    configuration.parameters.blocks[0].codes[0].script.push(`DELETE FROM "totals" WHERE "total" < 0;`);
    await ui.storage.updateConfig("default", "keboola.snowflake-transformation", "orders", { configuration, changeDescription: "UI edit" });

    const drift = await keboolaPulumi(root, "drift");
    expect(drift.code, describeResult(drift)).toBe(2);
    expect(drift.stdout).toContain("(read from ");
    expect(drift.stdout).toContain("transformations/orders/001-load.sql (fn::readFile): to keep Keboola's value, write it into that file)");

    const files = ["keboola.yaml", "transformations/orders/001-load.sql"].map((f) => path.join(dir, f));
    const before = files.map((f) => fs.readFileSync(f, "utf8"));
    const pull = await keboolaPulumi(root, "pull");
    expect(pull.code, describeResult(pull)).toBe(0);
    expect(files.map((f) => fs.readFileSync(f, "utf8"))).toEqual(before);
    expect(pull.stderr).toContain("pull leaves configurations.orders.configuration.parameters.blocks.0.codes.0.script and the file as they are");
  }, 600_000);
});
