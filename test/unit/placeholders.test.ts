import { afterEach, describe, expect, it, vi } from "vitest";
import { UNKNOWN } from "../../provider/validation/check";
import { checkPlaceholders, findPlaceholders, placeholdersIn } from "../../provider/validation/placeholders";
import { componentConfig } from "../provider/hosted";
import { planRows } from "../../provider/resources/component-config";
import type { ConfigRow } from "../../provider/api/storage";
import type { KeboolaClient } from "../../provider/api/client";
import type { ResourceContext } from "../../provider/resources/types";

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
    expect(checkPlaceholders([{ value: "{{a.b}}", path: ["configuration"] }], ["a"])).toEqual({ undeclared: [], unused: [] });
  });
});

// The stack as check sees it: these components exist, no configuration does yet (preflight.ts).
const ctx: ResourceContext = {
  client() {
    return {
      storage: {
        components: async () => [{ id: "keboola.ex-generic-v2" }, { id: "keboola.wr-db-snowflake" }],
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
  });
});
