import { describe, expect, it } from "vitest";
import { joinSql, splitSql, splitSqlAt } from "../../keboola/sql";
import { codeOfScripts, scriptsOfCode, splitsIntoStatements } from "../../keboola/code-scripts";

// keboola/sql.ts splits and joins SQL as kbc does, so a code file deploys to the statements kbc
// would push.

// kbc's own cases, each as written there: keboola/keboola-as-code internal/pkg/sql/sql_test.go
// (TestSqlSplitAndJoin, at commit 86d930f4d22dba99269f4f8aa666d8f4fcd05b00, the commit
// CONTRIBUTING.md's fidelity runs use). Each case: Split(input) is statements, Join(statements)
// is output. The cases from "split queries" on are the UI's (kbc-ui splitSqlQueries.spec.js), and
// their Go raw strings begin and end with a newline; `output` is their strings.TrimSpace.
const KBC_CASES: Array<{ comment: string; input: string; output: string; statements: string[] }> = [
  { comment: "empty", input: "", output: "", statements: [] },
  { comment: "one statement", input: "SELECT * FROM [bar]", output: "SELECT * FROM [bar]", statements: ["SELECT * FROM [bar]"] },
  { comment: "one statement + whitespaces", input: "   \n\n\nSELECT * FROM [bar]\t\n  ", output: "SELECT * FROM [bar]", statements: ["SELECT * FROM [bar]"] },
  {
    comment: "multiple",
    input: "   \n\n\nSELECT * FROM [bar];\t\n  INSERT INTO bar VALUES('x', 'y'); TRUNCATE records;;;",
    output: "SELECT * FROM [bar];\n\nINSERT INTO bar VALUES('x', 'y');\n\nTRUNCATE records;",
    statements: ["SELECT * FROM [bar];", "INSERT INTO bar VALUES('x', 'y');", "TRUNCATE records;"],
  },
  { comment: "split queries", input: "\nSELECT 1;\nSelect 2;\nSELECT 3;\n", output: "SELECT 1;\n\nSelect 2;\n\nSELECT 3;", statements: ["SELECT 1;", "Select 2;", "SELECT 3;"] },
  {
    comment: "multi line comments with syntax /* */",
    input: "\nSELECT 1;\n/*\n  Select 2;\n*/\nSELECT 3;\n",
    output: "SELECT 1;\n\n/*\n  Select 2;\n*/\nSELECT 3;",
    statements: ["SELECT 1;", "/*\n  Select 2;\n*/\nSELECT 3;"],
  },
  {
    comment: "single line comments with -- syntax",
    input: "\nSELECT 1;\n-- Select 2;\nSELECT 3;\n",
    output: "SELECT 1;\n\n-- Select 2;\nSELECT 3;",
    statements: ["SELECT 1;", "-- Select 2;\nSELECT 3;"],
  },
  {
    comment: "single line comments with # syntax",
    input: "\nSELECT 1;\n# Select 2;\nSELECT 3;\n",
    output: "SELECT 1;\n\n# Select 2;\nSELECT 3;",
    statements: ["SELECT 1;", "# Select 2;\nSELECT 3;"],
  },
  {
    comment: "single line comments with // syntax",
    input: "\nSELECT 1;\n// Select 2;\nSELECT 3;\n",
    output: "SELECT 1;\n\n// Select 2;\nSELECT 3;",
    statements: ["SELECT 1;", "// Select 2;\nSELECT 3;"],
  },
  {
    comment: "multi line code with syntax $$",
    input: "\nSELECT 1;\nexecute immediate $$\n  SELECT 2;\n  SELECT 3;\n$$;\n",
    output: "SELECT 1;\n\nexecute immediate $$\n  SELECT 2;\n  SELECT 3;\n$$;",
    statements: ["SELECT 1;", "execute immediate $$\n  SELECT 2;\n  SELECT 3;\n$$;"],
  },
];

describe("SQL split and join, kbc's cases (keboola-as-code internal/pkg/sql/sql_test.go)", () => {
  it.each(KBC_CASES)("$comment", ({ input, output, statements }) => {
    expect(splitSql(input)).toEqual(statements);
    expect(joinSql(statements)).toBe(output);
  });
});

// Where kbc's expression is less obvious. Each expected list is what kbc's Split returned for the
// input, run in Go (its expression through Go's regexp, then strings.TrimSpace), recorded once;
// 100,000 random texts of these characters gave the same statements in Go and here.
const GO_RECORDED: Array<[string, string, string[]]> = [
  ["a lone ; after white space is a statement of its own", "SELECT 1; ;", ["SELECT 1;", ";"]],
  ["a vertical tab is not regexp white space, but TrimSpace trims it", "a;\u000b;", ["a;", ";"]],
  ["extra ; alone are dropped", ";;;", []],
  ["a ; inside quotes does not end a statement", "SELECT 'a;b'; SELECT \"c;d\";", ["SELECT 'a;b';", 'SELECT "c;d";']],
  ["a doubled quote is two strings", "SELECT 1;\nSELECT 'it''s';", ["SELECT 1;", "SELECT 'it''s';"]],
  ["a backslash escapes a quote", "SELECT 'a\\'b;c';", ["SELECT 'a\\'b;c';"]],
  ["a comment after ; opens the next statement", "SELECT 1; -- trailing; comment\nSELECT 2;", ["SELECT 1;", "-- trailing; comment\nSELECT 2;"]],
  ["a // comment takes its ;", "x // y; z\n;", ["x // y; z\n;"]],
  ["a comment alone", "# only a comment", ["# only a comment"]],
  ["CRLF lines: Go's . takes the \\r", "SELECT 1;\r\n-- c;\r\nSELECT 2;\r\n", ["SELECT 1;", "-- c;\r\nSELECT 2;"]],
  ["an unclosed comment is not a comment", "SELECT 1 /* unclosed; comment", ["SELECT 1 /* unclosed;", "comment"]],
  ["$$ reaches a later $$ when the nearest leaves a quote open", "SELECT $$ a $$ 'x $$ ;", ["SELECT $$ a $$ 'x $$ ;"]],
  ["a comment is read as text when that closes a quote", "/* it's */ 'abc", ["/* it's */ 'abc"]],
  ["TrimSpace trims Unicode white space (NBSP, NEL)", "\u00a0SELECT 1;\u00a0\u0085", ["SELECT 1;"]],
  ["TrimSpace keeps a byte order mark", "\ufeffSELECT 1;", ["\ufeffSELECT 1;"]],
  ["templates are text", "SELECT '{{var}}'; SELECT \"${x}\";", ["SELECT '{{var}}';", 'SELECT "${x}";']],
  ["an unclosed quote: kbc loses what came before it", "SELECT 'abc", ["abc"]],
  ["a backslash before a newline escapes nothing", "SELECT 'a\\\nb;'; SELECT 2;", ["a\\\nb;", "SELECT 2;"]],
];

describe("SQL split where kbc's expression is less obvious (recorded from Go)", () => {
  it.each(GO_RECORDED)("%s", (_what, input, statements) => {
    expect(splitSql(input)).toEqual(statements);
  });

  it("says where each statement starts, and which code the split drops", () => {
    expect(splitSqlAt("  SELECT 1;\n\nSELECT 2;").statements).toEqual([
      { text: "SELECT 1;", start: 2 },
      { text: "SELECT 2;", start: 13 },
    ]);
    expect(splitSqlAt("SELECT 1; ;;\n").dropped).toEqual([]);
    expect(splitSqlAt("SELECT 'abc").dropped).toEqual([{ start: 0, end: 8 }]);
    expect(splitSqlAt("SELECT 1;\nSELECT 'a\\\nb;'; SELECT 2;").dropped).toEqual([
      { start: 9, end: 18 },
      { start: 23, end: 25 },
    ]);
  });

  it("takes linear time where a backtracking engine would not end (an unclosed quote after many comments)", () => {
    const text = "-- a comment\n/* a block */\n".repeat(20_000) + "SELECT 'unclosed";
    const started = Date.now();
    const split = splitSqlAt(text);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(split.dropped).toHaveLength(1);
  });
});

// kbc's ScriptsFromStr and Scripts.String (keboola/keboola-as-code internal/pkg/model/transformation.go).
describe("a code's scripts as kbc keeps them in a file", () => {
  it("splits SQL for the three components kbc splits, and keeps any other code whole", () => {
    expect(["keboola.snowflake-transformation", "keboola.synapse-transformation", "keboola.oracle-transformation"].every(splitsIntoStatements)).toBe(true);
    expect(["keboola.python-transformation-v2", "keboola.r-transformation-v2", "keboola.redshift-transformation", "keboola.google-bigquery-transformation"].some(splitsIntoStatements)).toBe(false);
    const text = "SELECT 1;\n\nSELECT 2;  \n\n";
    expect(scriptsOfCode(text, "keboola.snowflake-transformation").statements.map((s) => s.text)).toEqual(["SELECT 1;", "SELECT 2;"]);
    expect(scriptsOfCode(text, "keboola.redshift-transformation").statements).toEqual([{ text: "SELECT 1;\n\nSELECT 2;", start: 0 }]);
    expect(scriptsOfCode("import os\n\nprint(1)\n", "keboola.python-transformation-v2").statements.map((s) => s.text)).toEqual(["import os\n\nprint(1)"]);
  });

  it("an empty file: no statement of SQL, one empty script of anything else", () => {
    expect(scriptsOfCode("\n", "keboola.snowflake-transformation").statements).toEqual([]);
    expect(scriptsOfCode("\n", "keboola.python-transformation-v2").statements).toEqual([{ text: "", start: 0 }]);
  });

  it("writes what it reads back: statements with an empty line between, a final newline", () => {
    const scripts = ["CREATE TABLE a AS SELECT 1;", "-- load\nINSERT INTO a VALUES (2);  "];
    const text = codeOfScripts(scripts, "keboola.snowflake-transformation");
    expect(text).toBe("CREATE TABLE a AS SELECT 1;\n\n-- load\nINSERT INTO a VALUES (2);\n");
    expect(scriptsOfCode(text, "keboola.snowflake-transformation").statements.map((s) => s.text)).toEqual(["CREATE TABLE a AS SELECT 1;", "-- load\nINSERT INTO a VALUES (2);"]);
    expect(codeOfScripts(["import os", "print(1)\n"], "keboola.python-transformation-v2")).toBe("import os\nprint(1)\n");
  });
});
