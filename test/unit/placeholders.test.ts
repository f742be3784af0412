import { afterEach, describe, expect, it, vi } from "vitest";
import { UNKNOWN } from "../../provider/validation/check";
import { checkPlaceholders, findPlaceholders, placeholdersIn, scanPlaceholders, undeclaredMessage } from "../../provider/validation/placeholders";
import { componentConfig } from "../provider/hosted";
import { planRows } from "../../provider/kinds/component-config/rows";
import type { ConfigRow } from "../../provider/api/storage";
import type { KeboolaClient } from "../../provider/api/client";
import type { ResourceContext } from "../../provider/lifecycle/types";

// The placeholder scanner and the checks ComponentConfig builds on it (no API involved).

describe("placeholdersIn", () => {
  it("finds Mustache variable tags, with or without spaces", () => {
    expect(placeholdersIn("users?limit={{limit}}&q={{ query }}")).toEqual([
      { name: "limit", tag: "{{limit}}" },
      { name: "query", tag: "{{ query }}" },
    ]);
  });

  it("reads triple, ampersand and section tags as references", () => {
    expect(placeholdersIn("{{{raw}}} {{&amp}} {{#flag}}x{{/flag}} {{^none}}y{{/none}}").map((p) => p.name)).toEqual(["raw", "amp", "flag", "flag", "none", "none"]);
  });

  it("keeps each tag whole as written: a triple tag is one tag, spaces or none, a name of several characters", () => {
    expect(placeholdersIn("{{{raw}}}/{{{ spaced }}}/{{{a}}}")).toEqual([
      { name: "raw", tag: "{{{raw}}}" },
      { name: "spaced", tag: "{{{ spaced }}}" },
      { name: "a", tag: "{{{a}}}" },
    ]);
    expect(placeholdersIn("{{#  flag  }}")).toEqual([{ name: "flag", tag: "{{#  flag  }}" }]);
  });

  it("skips a tag only when !, > or = starts it: inside a name they are part of the name, as Mustache reads it", () => {
    expect(placeholdersIn("{{a!b}} {{x>y}} {{k=v}} {{!c}}").map((p) => p.name)).toEqual(["a!b", "x>y", "k=v"]);
  });

  it("ignores comments, partials, delimiter changes and lone braces", () => {
    expect(placeholdersIn("{{! a comment }} {{> partial}} {{=<% %>=}} { {x} } {{}} {{ . }}")).toEqual([]);
  });
});

describe("findPlaceholders", () => {
  it("walks nested values and keys, reporting property paths", () => {
    const configuration = {
      parameters: {
        api: { baseUrl: "https://{{host}}/v1/" },
        config: { jobs: [{ endpoint: "users", params: { "{{keyName}}": "1", limit: "{{limit}}" } }] },
      },
    };
    expect(findPlaceholders(configuration, ["configuration"])).toEqual([
      { name: "host", tag: "{{host}}", path: "configuration.parameters.api.baseUrl" },
      { name: "keyName", tag: "{{keyName}}", path: "configuration.parameters.config.jobs[0].params.{{keyName}}" },
      { name: "limit", tag: "{{limit}}", path: "configuration.parameters.config.jobs[0].params.limit" },
    ]);
  });

  it("finds nothing in numbers, booleans and the preview marker", () => {
    expect(findPlaceholders({ a: 1, b: true, c: null, d: UNKNOWN })).toEqual([]);
  });
});

describe("checkPlaceholders", () => {
  it("reports undeclared references and unused declarations", () => {
    const report = checkPlaceholders(
      [
        { value: { parameters: { limit: "{{limit}}" } }, path: ["configuration"] },
        { value: { parameters: { jobs: [{ endpoint: "{{endpoint}}" }] } }, path: ["rows", 1, "configuration"] },
      ],
      ["limit", "unused"],
    );
    expect(report.undeclared).toEqual([{ name: "endpoint", tag: "{{endpoint}}", path: "rows[1].configuration.parameters.jobs[0].endpoint" }]);
    expect(report.unused).toEqual(["unused"]);
  });

  it("takes {{a.b}} as a use of variable a", () => {
    expect(checkPlaceholders([{ value: "{{a.b}}", path: ["configuration"] }], ["a"])).toEqual({ undeclared: [], unused: [], links: [] });
    expect(checkPlaceholders([{ value: "{{limit.max}}", path: ["configuration"] }], ["limit"])).toEqual({ undeclared: [], unused: [], links: [] });
    expect(checkPlaceholders([{ value: "{{limit.max}}", path: ["configuration"] }], ["lim"]).undeclared.map((u) => u.name)).toEqual(["limit.max"]);
  });

  it("names the declared variables in the refusal, or says none are declared, and adds the link hint only with shared code", () => {
    const use = { name: "limit", tag: "{{ limit }}", path: "configuration.parameters.x" };
    expect(undeclaredMessage(use, ["a", "b"], false)).toBe(
      'placeholder {{ limit }} refers to variable "limit", which the bound variables do not declare (declared: a, b): ' +
        "declare it in the VariableConfig's variables, or fix the placeholder",
    );
    expect(undeclaredMessage(use, [], false)).toContain("(no variables are declared)");
    expect(undeclaredMessage(use, [], true)).toMatch(/fix the placeholder; if it links shared code, list "limit" in shared_code_row_ids and keep the link in an item of a list of strings \(such as script\[\]\)$/);
  });
});

// Links to shared code are not variables. The shapes are those of keboola/keboola-as-code
// test/cli/push/shared-code-with-vars/expected-state.json: a python transformation whose script is
// `{{<shared code row id>}}` (links/id.go: IDFormat "{{<ID>}}", the API form of a link), with
// shared_code_id / shared_code_row_ids; which items are links follows the runner's resolver
// (keboola/configuration-variables-resolver SharedCodeResolver, see shared-code.ts).
describe("placeholders and links to shared code", () => {
  const ROW = "1002"; // a shared code row id (%%TEST_NEW_TICKET_2%% in the fixture)
  const script = (items: string[]) => ({ parameters: { blocks: [{ name: "Block 1", codes: [{ name: "Shared Code Used", script: items }] }] } });

  it("takes {{row id}} of shared_code_row_ids in a script item as a link, the rest as variables", () => {
    const scan = scanPlaceholders(script([`{{${ROW}}}`, "print({{limit}})", `{{ ${ROW} }}`]), ["configuration"], [ROW]);
    expect(scan.links).toEqual([
      { name: ROW, tag: `{{${ROW}}}`, path: "configuration.parameters.blocks[0].codes[0].script[0]" },
      { name: ROW, tag: `{{ ${ROW} }}`, path: "configuration.parameters.blocks[0].codes[0].script[2]" },
    ]);
    expect(scan.uses).toEqual([{ name: "limit", tag: "{{limit}}", path: "configuration.parameters.blocks[0].codes[0].script[1]" }]);
  });

  it("drops the other placeholders of an item a link replaces (the runner replaces the whole item)", () => {
    expect(scanPlaceholders({ s: [`-- {{table}}\n{{${ROW}}}`] }, [], [ROW]).uses).toEqual([]);
  });

  it("keeps a {{id}} as a variable outside lists of scalars, or when it is not one of shared_code_row_ids", () => {
    expect(scanPlaceholders({ script: `{{${ROW}}}` }, [], [ROW]).uses.map((u) => u.name)).toEqual([ROW]);
    expect(scanPlaceholders({ script: [`{{${ROW}}}`, { x: 1 }] }, [], [ROW]).uses.map((u) => u.name)).toEqual([ROW]);
    expect(scanPlaceholders({ script: ["{{9999}}"] }, [], [ROW]).uses.map((u) => u.name)).toEqual(["9999"]);
    expect(scanPlaceholders({ script: [`{{${ROW}}}`] }, [], []).uses.map((u) => u.name)).toEqual([ROW]);
  });

  it("reports no unused variable when the configuration links shared code (the code may use it)", () => {
    const report = checkPlaceholders([{ value: script([`{{${ROW}}}`]), path: ["configuration"], linkIds: [ROW] }], ["num1", "num2"]);
    expect(report).toMatchObject({ undeclared: [], unused: [] });
    expect(report.links.map((l) => l.name)).toEqual([ROW]);
  });
});

// The stack as check sees it: these components exist, no configuration does yet (preflight.ts).
const ctx: ResourceContext = {
  client() {
    return {
      storage: {
        components: async () => [{ id: "keboola.ex-generic-v2" }, { id: "keboola.wr-db-snowflake" }, { id: "keboola.python-transformation-v2" }, { id: "keboola.shared-code" }],
        devBranches: async () => [{ id: 101, name: "Main", isDefault: true }],
        findConfig: async () => undefined,
      },
    } as unknown as KeboolaClient;
  },
};

const declared = [
  { name: "limit", type: "int" },
  { name: "endpoint", type: "string" },
];

function extractor(extra: Record<string, unknown> = {}) {
  return {
    __resourceName: "users",
    componentId: "keboola.ex-generic-v2",
    name: "Users",
    configuration: {
      parameters: {
        api: { baseUrl: "https://api.example.com/", pagination: { method: "offset", limit: "{{limit}}" } },
        config: { outputBucket: "in.c-users", jobs: [{ endpoint: "users", dataField: "items" }] },
      },
    },
    variables: { configId: "11", valuesRowId: "12", declared },
    rows: [
      { name: "first", configuration: {} },
      { name: "second", configuration: { parameters: { config: { jobs: [{ endpoint: "{{endpoint}}" }] } } } },
    ],
    ...extra,
  };
}

describe("ComponentConfig check", () => {
  afterEach(() => vi.restoreAllMocks());

  it("accepts a bound configuration whose placeholders are all declared", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const r = await componentConfig.check(ctx, {}, extractor());
    expect(r.failures).toEqual([]);
    expect(r.inputs).toMatchObject({ branchId: "default", description: "", isDisabled: false, purgeOnDelete: false });
    expect(warn).not.toHaveBeenCalled();
  });

  it("fails an undeclared placeholder at its property path, naming it", async () => {
    const input = extractor({ variables: { configId: "11", declared: [{ name: "limit", type: "int" }] } });
    const r = await componentConfig.check(ctx, {}, input);
    expect(r.failures).toEqual([
      {
        property: "rows[1].configuration.parameters.config.jobs[0].endpoint",
        reason:
          'placeholder {{endpoint}} refers to variable "endpoint", which the bound variables do not declare (declared: limit): declare it in the VariableConfig\'s variables, or fix the placeholder',
      },
    ]);
  });

  it("warns about declared but unused variables (stderr, shown by the CLI)", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const input = extractor({ variables: { configId: "11", declared: [...declared, { name: "since", type: "string" }] } });
    expect((await componentConfig.check(ctx, {}, input)).failures).toEqual([]);
    expect(warn).toHaveBeenCalledWith('warning: ComponentConfig "users": variable "since" is declared but no {{since}} placeholder in the configuration or its rows uses it');
  });

  it("checks placeholders at the first preview, when only the variables configuration's ids are unknown", async () => {
    const input = extractor({ variables: { configId: UNKNOWN, valuesRowId: UNKNOWN, declared: [{ name: "limit", type: "int" }] } });
    expect((await componentConfig.check(ctx, {}, input)).failures).toEqual([
      expect.objectContaining({ property: "rows[1].configuration.parameters.config.jobs[0].endpoint" }),
    ]);
  });

  it("skips the placeholder check while the declarations are unknown, or without a binding", async () => {
    expect((await componentConfig.check(ctx, {}, extractor({ variables: { configId: UNKNOWN, declared: UNKNOWN } }))).failures).toEqual([]);
    const { variables: _v, ...unbound } = extractor();
    expect((await componentConfig.check(ctx, {}, { ...unbound, configuration: { sql: "select '{{ not a variable }}'" } })).failures).toEqual([]);
  });

  it("validates the generic extractor's pagination at its path in the configuration", async () => {
    const input = extractor();
    (input.configuration.parameters.api as Record<string, unknown>).pagination = { method: "multiple", scrollers: { page: { method: "response.param", queryParam: "p" } } };
    const r = await componentConfig.check(ctx, {}, input);
    expect(r.failures).toEqual([
      {
        property: "configuration.parameters.api.pagination.scrollers.page.responseParam",
        reason: 'required for response.param pagination: the path to the response key holding the next-page value, e.g. "pagination.next"',
      },
    ]);
  });

  it("checks a row's jobs against the root's scrollers", async () => {
    const input = extractor({ rows: [{ name: "r", configuration: { parameters: { config: { jobs: [{ endpoint: "x", scroller: "page" }] } } } }] });
    expect((await componentConfig.check(ctx, {}, input)).failures).toEqual([
      {
        property: "rows[0].configuration.parameters.config.jobs[0].scroller",
        reason: 'a job can name a scroller only when parameters.api.pagination.method is "multiple" (it is "offset"): define the scroller "page" under pagination.scrollers, or remove the job\'s scroller',
      },
    ]);
  });

  it("does not apply extractor checks to other components", async () => {
    const input = extractor({ componentId: "keboola.wr-db-snowflake" });
    input.configuration.parameters.api.pagination = { method: "nonsense" } as never;
    expect((await componentConfig.check(ctx, {}, input)).failures).toEqual([]);
  });

  it("rejects variables_id in the configuration of a bound configuration, and duplicate row ids", async () => {
    const input = extractor({ rows: [{ rowId: "a", name: "x" }, { rowId: "a", name: "y" }] });
    (input.configuration as Record<string, unknown>).variables_id = "11";
    expect((await componentConfig.check(ctx, {}, input)).failures).toEqual([
      { property: "rows[1].rowId", reason: 'duplicate rowId "a" (also rows[0]): row ids must be unique' },
      { property: "configuration.variables_id", reason: "is written from the variables input: remove variables_id from the configuration" },
    ]);
  });
});

// A python transformation bound to variables that uses shared code, and the shared code whose row
// is bound to the variables its code uses (keboola/keboola-as-code
// test/cli/push/shared-code-with-vars/expected-state.json, with a variables binding added to the
// transformation as in test/templates/api/projects/project-with-shared-variables).
describe("ComponentConfig check with shared code", () => {
  afterEach(() => vi.restoreAllMocks());
  const ROW = "1002";
  const transformation = (script: unknown, extra: Record<string, unknown> = {}) => ({
    __resourceName: "sums",
    componentId: "keboola.python-transformation-v2",
    name: "Transformation With Shared Code",
    configuration: {
      parameters: { blocks: [{ name: "Block 1", codes: [{ name: "Shared Code Used", script }] }] },
      shared_code_id: "1001",
      shared_code_row_ids: [ROW],
    },
    variables: { configId: "11", declared: [{ name: "limit", type: "string" }] },
    ...extra,
  });
  const sharedCode = (code: string, declared: Array<{ name: string; type: string }>) => ({
    __resourceName: "shared-codes",
    componentId: "keboola.shared-code",
    name: "Shared Codes",
    configuration: { componentId: "keboola.python-transformation-v2" },
    rows: [
      { rowId: ROW, name: "Code with variables", configuration: { code_content: [code] }, variables: { configId: "13", declared } },
      { name: "My code 1", configuration: { code_content: ["print('Hello, world!')"] } },
    ],
  });
  const NUMS = [
    { name: "num1", type: "string" },
    { name: "num2", type: "string" },
  ];

  it("accepts a link to shared code in a configuration bound to variables", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    expect((await componentConfig.check(ctx, {}, transformation([`{{${ROW}}}`, "print({{limit}})"]))).failures).toEqual([]);
    // No "declared but unused" warning either: the linked code may use the variables.
    expect((await componentConfig.check(ctx, {}, transformation([`{{${ROW}}}`]))).failures).toEqual([]);
    expect(warn).not.toHaveBeenCalled();
  });

  it("still refuses undeclared variables next to links, saying how a link is written", async () => {
    const r = await componentConfig.check(ctx, {}, transformation([`{{${ROW}}}`, "print({{since}})", `# shared: {{ ${ROW} }}`]));
    expect(r.failures).toEqual([
      {
        property: "configuration.parameters.blocks[0].codes[0].script[1]",
        reason:
          'placeholder {{since}} refers to variable "since", which the bound variables do not declare (declared: limit): declare it in the VariableConfig\'s variables, or fix the placeholder; if it links shared code, list "since" in shared_code_row_ids and keep the link in an item of a list of strings (such as script[])',
      },
    ]);
    // A link outside a list of strings is rendered as a variable by the runner: refused.
    const inString = await componentConfig.check(ctx, {}, transformation(`{{${ROW}}}`));
    expect(inString.failures).toEqual([expect.objectContaining({ property: "configuration.parameters.blocks[0].codes[0].script", reason: expect.stringContaining(`placeholder {{${ROW}}} refers to variable "${ROW}"`) })]);
  });

  it("checks a row bound to variables of its own against them", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    expect((await componentConfig.check(ctx, {}, sharedCode("num1 = {{num1}}\nnum2 = {{num2}}\nsum = num1 + num2", NUMS))).failures).toEqual([]);
    expect(warn).not.toHaveBeenCalled();
    const r = await componentConfig.check(ctx, {}, sharedCode("num1 = {{num1}}\nnum3 = {{num3}}", NUMS));
    expect(r.failures).toEqual([
      {
        property: "rows[0].configuration.code_content[0]",
        reason: 'placeholder {{num3}} refers to variable "num3", which the bound variables do not declare (declared: num1, num2): declare it in the VariableConfig\'s variables, or fix the placeholder',
      },
    ]);
    expect(warn).toHaveBeenCalledWith('warning: ComponentConfig "shared-codes": variable "num2" is declared but no {{num2}} placeholder in rows[0] (bound to its own variables) uses it');
  });

  it("rejects variables_id in the configuration of a bound row", async () => {
    const input = sharedCode("x = {{num1}} + {{num2}}", NUMS);
    (input.rows[0].configuration as Record<string, unknown>).variables_id = "13";
    expect((await componentConfig.check(ctx, {}, input)).failures).toEqual([
      { property: "rows[0].configuration.variables_id", reason: "is written from the row's variables input: remove variables_id from the row's configuration" },
    ]);
  });
});

describe("ComponentConfig diff", () => {
  const binding = { configId: "11", valuesRowId: "12", declared };
  // State as recorded: the checked inputs, rows with their defaults.
  const rows = extractor().rows.map((r) => ({ description: "", isDisabled: false, ...r }));
  const olds = { ...extractor(), rows, branchId: "default", description: "", isDisabled: false, purgeOnDelete: false, configId: "20", rowIds: ["1", "2"], variables: binding };

  it("sees no change when only the declarations or unknown-at-preview ids differ", async () => {
    expect(await componentConfig.diff(ctx, "id", olds, { ...olds, configId: undefined, variables: { ...binding, declared: [] } })).toMatchObject({ changes: false });
    expect(await componentConfig.diff(ctx, "id", olds, { ...olds, configId: undefined, variables: { configId: UNKNOWN, valuesRowId: UNKNOWN, declared } })).toMatchObject({ changes: false });
  });

  it("updates in place when the binding points elsewhere", async () => {
    expect(await componentConfig.diff(ctx, "id", olds, { ...olds, configId: undefined, variables: { configId: "11", declared } })).toEqual({
      changes: true,
      replaces: [],
      deleteBeforeReplace: false,
    });
  });

  it("compares a row's own binding by its references, as the configuration's", async () => {
    const rowBinding = { configId: "13", declared: [{ name: "endpoint", type: "string" }] };
    const boundRows = rows.map((r, i) => (i === 1 ? { ...r, variables: rowBinding } : r));
    const bound = { ...olds, rows: boundRows };
    const withRow = (variables: unknown) => ({ ...bound, configId: undefined, rows: boundRows.map((r, i) => (i === 1 ? { ...r, variables } : r)) });
    expect(await componentConfig.diff(ctx, "id", bound, withRow({ ...rowBinding, declared: [] }))).toMatchObject({ changes: false });
    expect(await componentConfig.diff(ctx, "id", bound, withRow({ configId: UNKNOWN, declared: rowBinding.declared }))).toMatchObject({ changes: false });
    expect(await componentConfig.diff(ctx, "id", bound, withRow({ configId: "14" }))).toMatchObject({ changes: true, replaces: [] });
    expect(await componentConfig.diff(ctx, "id", bound, withRow(undefined))).toMatchObject({ changes: true });
  });
});

describe("planRows", () => {
  const existing = (...rows: Array<[string, string]>): ConfigRow[] =>
    rows.map(([id, name]) => ({ id, name, description: "", configuration: {}, isDisabled: false, version: 1 }));

  it("matches by recorded name, so an insert in front keeps the other rows", () => {
    const plan = planRows([{ name: "new" }, { name: "a" }, { name: "b" }], { rows: [{ name: "a" }, { name: "b" }], rowIds: ["1", "2"] }, existing(["1", "a"], ["2", "b"]));
    expect(plan).toEqual({ matched: [undefined, "1", "2"], deletes: [] });
  });

  it("keeps the id of a row renamed in place, and deletes dropped rows", () => {
    const plan = planRows([{ name: "a2" }], { rows: [{ name: "a" }, { name: "b" }], rowIds: ["1", "2"] }, existing(["1", "a"], ["2", "b"]));
    expect(plan).toEqual({ matched: ["1"], deletes: ["2"] });
  });

  it("uses explicit ids first, creating a missing one", () => {
    const plan = planRows([{ rowId: "x", name: "b" }, { rowId: "2", name: "a" }], { rows: [{ name: "a" }, { name: "b" }], rowIds: ["1", "2"] }, existing(["1", "a"], ["2", "b"]));
    expect(plan).toEqual({ matched: [undefined, "2"], deletes: ["1"] });
  });

  it("adopts an existing row of the same unique name when state knows nothing (import)", () => {
    expect(planRows([{ name: "a" }, { name: "c" }], { rows: [], rowIds: [] }, existing(["1", "a"], ["2", "b"]))).toEqual({ matched: ["1", undefined], deletes: ["2"] });
    expect(planRows([{ name: "a" }], { rows: [], rowIds: [] }, existing(["1", "b"], ["2", "a"]))).toEqual({ matched: ["2"], deletes: ["1"] });
  });

  it("adopts by name only when the name is unique on both sides: which of two rows is which cannot be told", () => {
    expect(planRows([{ name: "a" }, { name: "a" }], { rows: [], rowIds: [] }, existing(["1", "a"]))).toEqual({ matched: [undefined, undefined], deletes: ["1"] });
    expect(planRows([{ name: "a" }], { rows: [], rowIds: [] }, existing(["1", "a"], ["2", "a"]))).toEqual({ matched: [undefined], deletes: ["1", "2"] });
  });
});
