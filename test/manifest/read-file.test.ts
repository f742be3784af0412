import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { execFileSync } from "node:child_process";
import { ManifestError, readManifest, type ManifestProblem } from "../../provider/manifest/parse";
import type { StackValues } from "../../provider/manifest/config-values";

// fn::readFile in keboola.yaml: a file's text wherever an entry takes a string, and transformation
// code split into the scripts kbc would push; every problem at its position (in the manifest, or
// in the file when a place in it is at fault), with the property path and the fix.

let dir: string;
let manifest: string;

function write(rel: string, content: string | Buffer): void {
  const file = path.join(dir, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
}

function stack(values: Record<string, string>): StackValues {
  return { namespace: "keboola", get: (name) => (name in values ? { value: values[name], secret: false } : undefined) };
}

function problemsOf(text: string, values?: StackValues): ManifestProblem[] {
  try {
    readManifest(text, manifest, { stack: values });
  } catch (err) {
    expect(err).toBeInstanceOf(ManifestError);
    return err instanceof ManifestError ? err.problems : [];
  }
  throw new Error("expected the manifest to be refused");
}

/** Line and column (from 1) of the first `needle` in `text`. */
function position(text: string, needle: string): { line: number; column: number } {
  const offset = text.indexOf(needle);
  expect(offset, needle).toBeGreaterThanOrEqual(0);
  const before = text.slice(0, offset).split("\n");
  return { line: before.length, column: before[before.length - 1].length + 1 };
}

const transformation = (componentId: string, script: string) => `config:
  schema: { type: string, default: analytics }
configurations:
  orders:
    componentId: ${componentId}
    name: Orders
    configuration:
      parameters:
        blocks:
          - name: Load
            codes:
              - name: Load orders
                script: ${script}
`;

const SQL = `CREATE TABLE "\${schema}"."orders" AS SELECT * FROM "in"; -- it's ok
-- the second; statement
INSERT INTO "orders" VALUES ('a;b', '{{ vendor }}');

`;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "read-file-"));
  manifest = path.join(dir, "keboola.yaml");
  write("transformations/orders/001-load.sql", SQL);
  write("transformations/orders/main.py", "import csv\n\nprint('${schema}')\n\n\n");
  write("notes/description.md", "Orders, loaded nightly.\n");
  write("empty.sql", "");
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const scriptOf = (text: string, values?: StackValues) => {
  const read = readManifest(text, manifest, { stack: values });
  const parameters = read.manifest.configurations?.orders.configuration.parameters as { blocks: Array<{ codes: Array<{ script: unknown }> }> };
  return { script: parameters.blocks[0].codes[0].script, read };
};

describe("fn::readFile: transformation code as kbc keeps it", () => {
  it("splits a Snowflake code file into the statements kbc pushes, ${name} resolved in each, {{variables}} kept", () => {
    const { script, read } = scriptOf(transformation("keboola.snowflake-transformation", "{ fn::readFile: transformations/orders/001-load.sql }"), stack({ schema: "prod" }));
    expect(script).toEqual([`CREATE TABLE "prod"."orders" AS SELECT * FROM "in";`, `-- it's ok\n-- the second; statement\nINSERT INTO "orders" VALUES ('a;b', '{{ vendor }}');`]);
    expect(read.files).toHaveLength(1);
    expect(read.files[0]).toMatchObject({ path: ["configurations", "orders", "configuration", "parameters", "blocks", 0, "codes", 0, "script"], name: "transformations/orders/001-load.sql", code: { componentId: "keboola.snowflake-transformation" } });
    expect(read.files[0].pieces.map((p) => p.start)).toEqual([0, SQL.indexOf("-- it's ok")]);
    // A value from a file is a value like any other: drift and pull know where it came from.
    expect(read.origins.map((o) => o.path.join("."))).toContain("configurations.orders.configuration.parameters.blocks.0.codes.0.script.0");
  });

  it("writes a literal ${ as $${ in a file, as inline", () => {
    write("transformations/orders/literal.sql", "SELECT '$${not_a_value}', '${schema}';\n");
    expect(scriptOf(transformation("keboola.snowflake-transformation", "{ fn::readFile: transformations/orders/literal.sql }")).script).toEqual(["SELECT '${not_a_value}', 'analytics';"]);
  });

  it("keeps Python, R and the SQL backends kbc does not split as one script, the trailing white space trimmed", () => {
    const python = transformation("keboola.python-transformation-v2", "{ fn::readFile: transformations/orders/main.py }");
    expect(scriptOf(python).script).toEqual(["import csv\n\nprint('analytics')"]);
    expect(scriptOf(transformation("keboola.google-bigquery-transformation", "{ fn::readFile: transformations/orders/001-load.sql }")).script).toEqual([SQL.trimEnd().replace("${schema}", "analytics")]);
    expect(scriptOf(transformation("keboola.snowflake-transformation", "{ fn::readFile: empty.sql }")).script).toEqual([]);
  });

  it("splits a shared code row's code_content by the component its configuration names", () => {
    const text = `config:
  schema: { type: string, default: analytics }
configurations:
  shared:
    componentId: keboola.shared-code
    name: Shared
    configuration: { componentId: keboola.snowflake-transformation }
    rows:
      - rowId: load
        name: Load
        configuration:
          code_content: { fn::readFile: transformations/orders/001-load.sql }
          note: { fn::readFile: notes/description.md }
`;
    const read = readManifest(text, manifest, { stack: stack({}) });
    const row = read.manifest.configurations?.shared.rows[0].configuration as { code_content: string[]; note: string };
    expect(row.code_content).toHaveLength(2);
    // Elsewhere in the row: the text as it is.
    expect(row.note).toBe("Orders, loaded nightly.\n");
    const without = text.replace("    configuration: { componentId: keboola.snowflake-transformation }\n", "");
    const problems = problemsOf(without);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ path: "configurations.shared.rows[0].configuration.code_content", ...position(without, "transformations/orders/001-load.sql") });
    expect(problems[0].message).toMatch(/names the component its code is for in configuration.componentId.*add it/);
  });
});

describe("fn::readFile: any other string", () => {
  it("is the file's text, as it is, wherever an entry takes a string; the path may use ${name}", () => {
    const text = `config:
  notes: { type: string, default: notes }
  schema: { type: string, default: analytics }
configurations:
  orders:
    componentId: keboola.snowflake-transformation
    name: Orders
    description: { fn::readFile: "\${notes}/description.md" }
    configuration:
      parameters:
        blocks: [{ name: B, codes: [{ name: C, script: [{ fn::readFile: transformations/orders/001-load.sql }, "SELECT 2;"] }] }]
`;
    const read = readManifest(text, manifest);
    expect(read.manifest.configurations?.orders.description).toBe("Orders, loaded nightly.\n");
    // An item of a script is a string like any other: the whole text.
    const script = (read.manifest.configurations?.orders.configuration.parameters as { blocks: Array<{ codes: Array<{ script: string[] }> }> }).blocks[0].codes[0].script;
    expect(script).toEqual([SQL.replace("${schema}", "analytics"), "SELECT 2;"]);
  });
});

describe("fn::readFile: refused at preview, at its position, with the fix", () => {
  const at = (script: string) => transformation("keboola.snowflake-transformation", script);
  beforeAll(() => {
    write("bin/data.sql", Buffer.from([0x53, 0x45, 0x0a, 0x00, 0x01]));
    write("bin/latin1.sql", Buffer.from("SELECT 1;\nSELECT 'caf\xe9';\n", "latin1"));
    fs.mkdirSync(path.join(dir, "transformations", "dir.sql"), { recursive: true });
    fs.writeFileSync(path.join(path.dirname(dir), `${path.basename(dir)}-outside.sql`), "SELECT 1;");
    fs.symlinkSync(path.join(path.dirname(dir), `${path.basename(dir)}-outside.sql`), path.join(dir, "link.sql"));
  });
  afterAll(() => fs.rmSync(path.join(path.dirname(dir), `${path.basename(dir)}-outside.sql`), { force: true }));

  it.each([
    ["a missing file", "{ fn::readFile: transformations/orders/002-missing.sql }", /^fn::readFile: "transformations\/orders\/002-missing.sql" does not exist \(looked for .*002-missing.sql\): create it, or fix the path/],
    ["a path escaping the project with ..", "{ fn::readFile: ../outside.sql }", /^fn::readFile: "..\/outside.sql" is outside the project directory .*: keep the file under the manifest's directory/],
    ["an absolute path outside the project", "{ fn::readFile: /etc/hostname }", /^fn::readFile: "\/etc\/hostname" is outside the project directory/],
    ["a link leading out of the project", "{ fn::readFile: link.sql }", /^fn::readFile: "link.sql" is a link to .*-outside.sql, which is outside the project directory/],
    ["a directory", "{ fn::readFile: transformations/dir.sql }", /^fn::readFile: "transformations\/dir.sql" is a directory: name a file in it/],
    ["a binary file", "{ fn::readFile: bin/data.sql }", /^fn::readFile: "bin\/data.sql" holds a NUL byte \(line 2\): it is a binary file: fn::readFile reads UTF-8 text/],
    ["a file that is not UTF-8", "{ fn::readFile: bin/latin1.sql }", /^fn::readFile: "bin\/latin1.sql" is not UTF-8 text \(an invalid byte sequence on line 2\): save it as UTF-8/],
    ["an empty path", '{ fn::readFile: "" }', /^fn::readFile: the path is empty: name a file relative to the manifest/],
    ["a path that is not a string", "{ fn::readFile: [a.sql] }", /^fn::readFile takes the path of a file, relative to the manifest/],
    ["another key beside it", "{ fn::readFile: empty.sql, name: x }", /^fn::readFile stands alone in its map: write \{ fn::readFile: <path> \} with no other key \(found name\)/],
  ])("%s", (_what, script, message) => {
    const text = at(script);
    const problems = problemsOf(text);
    // One problem: the checks of the entry say nothing of the value standing in for the file.
    expect(problems, JSON.stringify(problems)).toHaveLength(1);
    const [p] = problems;
    expect(p.file).toBe(manifest);
    expect(p.path).toBe("configurations.orders.configuration.parameters.blocks[0].codes[0].script");
    expect(p.message).toMatch(message);
    const valueAt = script.startsWith("{ fn::readFile: ") ? position(text, script.slice("{ fn::readFile: ".length)) : position(text, script);
    expect({ line: p.line, column: p.column }).toEqual(valueAt);
  });

  it("a FIFO, which would never end, is not read", () => {
    execFileSync("mkfifo", [path.join(dir, "pipe.sql")]);
    const [p] = problemsOf(at("{ fn::readFile: pipe.sql }"));
    expect(p.message).toBe('fn::readFile: "pipe.sql" is not a regular file: name a file');
  });

  it("an absolute path inside the project is read", () => {
    expect(scriptOf(at(`{ fn::readFile: ${path.join(dir, "empty.sql")} }`)).script).toEqual([]);
  });

  it("a ${name} a file gets wrong: at its line and column in the file, with the property path and where the manifest reads it", () => {
    write("transformations/orders/bad.sql", "SELECT 1;\n\nSELECT '${schema}', '${scheme}';\n");
    const text = at("{ fn::readFile: transformations/orders/bad.sql }");
    const problems = problemsOf(text);
    expect(problems).toHaveLength(1);
    const readAt = position(text, "transformations/orders/bad.sql");
    expect(problems[0]).toEqual({
      file: path.join(dir, "transformations/orders/bad.sql"),
      line: 3,
      column: 22,
      path: "configurations.orders.configuration.parameters.blocks[0].codes[0].script[1]",
      message: `\${scheme} is not declared: add it under config: (config: { scheme: { type: string } }), or use one of: schema (fn::readFile at ${manifest}:${readAt.line}:${readAt.column})`,
    });
  });

  it("a quote never closed, which kbc's split would drop code for: at the quote in the file", () => {
    write("transformations/orders/unclosed.sql", "SELECT 1;\nSELECT 'a\\\nb;'; SELECT 2;\n");
    const problems = problemsOf(at("{ fn::readFile: transformations/orders/unclosed.sql }"));
    expect(problems.map((p) => [p.file, p.line, p.column, p.path])).toEqual([
      [path.join(dir, "transformations/orders/unclosed.sql"), 2, 8, "configurations.orders.configuration.parameters.blocks[0].codes[0].script"],
      [path.join(dir, "transformations/orders/unclosed.sql"), 3, 3, "configurations.orders.configuration.parameters.blocks[0].codes[0].script"],
    ]);
    expect(problems[0].message).toMatch(/^a quote here is never closed, and keboola.snowflake-transformation code is split into statements as kbc splits it, which then drops "SELECT '": close the quote/);
  });

  it("in config:, where it is not read", () => {
    const text = `config:\n  x: { type: string, default: { fn::readFile: empty.sql } }\n`;
    const problems = problemsOf(text);
    expect(problems.find((p) => /fn::readFile is read in entries only: write the value in config: itself/.test(p.message))).toMatchObject({ path: "config.x.default", line: 2 });
  });

  it("a plain-text secret read from a file, as one written inline", () => {
    write("token.txt", "s3cret");
    const text = `configurations:\n  api:\n    componentId: keboola.ex-generic-v2\n    name: API\n    configuration: { parameters: { "#token": { fn::readFile: token.txt } } }\n`;
    const problems = problemsOf(text);
    expect(problems.map((p) => p.path)).toEqual(["configurations.api.configuration.parameters.#token"]);
    expect(problems[0].message).toMatch(/a secret in plain text/);
    expect(JSON.stringify(problems)).not.toContain("s3cret");
  });
});
