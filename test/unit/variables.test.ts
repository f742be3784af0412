import { describe, expect, it } from "vitest";
import { UNKNOWN } from "../../provider/validation/check";
import type { TokenInfo } from "../../provider/api/storage";
import type { ResourceContext } from "../../provider/lifecycle/types";
import { variableConfig as variables, jobRun } from "../provider/hosted";
import { declarationsIn, valueIssues, valuesIn, variableNameSchema, variableValuesSchema } from "../../provider/validation/variables";
import { componentAccessProblem } from "../../provider/lifecycle/configurations";
import { jobRequest, jobRunInputsSchema } from "../../provider/kinds/job-run/kind";

// VariableConfig inputs: declarations and default values, checked at preview (check needs no API).

const ctx: ResourceContext = {
  client() {
    throw new Error("check must not call the API");
  },
};

async function failures(news: Record<string, unknown>) {
  const r = await variables.check(ctx, {}, { __resourceName: "vars", ...news });
  return r.failures ?? [];
}

const base = { name: "Extractor variables", variables: [{ name: "limit", type: "int" }, { name: "endpoint", type: "string" }] };

describe("VariableConfig check", () => {
  it("accepts declarations and matching defaults, and fills in defaults", async () => {
    const r = await variables.check(ctx, {}, { __resourceName: "vars", ...base, defaultValues: { limit: "10", endpoint: "users" } });
    expect(r.failures).toEqual([]);
    expect(r.inputs).toMatchObject({ branchId: "default", description: "", purgeOnDelete: false, defaultValues: { limit: "10", endpoint: "users" } });
  });

  it("accepts a number for an int variable and a negative integer", async () => {
    expect(await failures({ ...base, defaultValues: { limit: 25 } })).toEqual([]);
    expect(await failures({ ...base, defaultValues: { limit: "-3" } })).toEqual([]);
  });

  it("defaults the type to string", async () => {
    const r = await variables.check(ctx, {}, { __resourceName: "vars", name: "v", variables: [{ name: "a" }] });
    expect(r.failures).toEqual([]);
    expect(r.inputs?.variables).toEqual([{ name: "a", type: "string" }]);
  });

  it("rejects an int default that is not an integer, at defaultValues.<name>", async () => {
    expect(await failures({ ...base, defaultValues: { limit: "ten" } })).toEqual([
      {
        property: "defaultValues.limit",
        reason: '"ten" is not an integer, but variable "limit" is declared as int: write a whole number such as "10", or declare the variable as "string"',
      },
    ]);
    expect(await failures({ ...base, defaultValues: { limit: 2.5 } })).toEqual([
      {
        property: "defaultValues.limit",
        reason: '"2.5" is not an integer, but variable "limit" is declared as int: write a whole number such as "10", or declare the variable as "string"',
      },
    ]);
  });

  it("rejects a default for an undeclared variable", async () => {
    expect(await failures({ ...base, defaultValues: { pageSize: "10" } })).toEqual([
      {
        property: "defaultValues.pageSize",
        reason: '"pageSize" is not a declared variable (declared: limit, endpoint): declare it in variables, e.g. {name: "pageSize", type: "string"}, or remove this value',
      },
    ]);
  });

  it("rejects a duplicated name at the duplicate", async () => {
    expect(await failures({ name: "v", variables: [{ name: "a", type: "string" }, { name: "b", type: "int" }, { name: "a", type: "int" }] })).toEqual([
      { property: "variables[2].name", reason: 'duplicate variable name "a" (already declared at variables[0]): declare each variable once' },
    ]);
  });

  it("rejects a bad type and a name Mustache cannot reference", async () => {
    expect(await failures({ name: "v", variables: [{ name: "a", type: "integer" }] })).toEqual([{ property: "variables[0].type", reason: 'must be "string" or "int"' }]);
    expect(await failures({ name: "v", variables: [{ name: "page.size", type: "string" }] })).toEqual([
      {
        property: "variables[0].name",
        reason: "must consist of letters, digits, _ and - only (it is used as {{name}}; a dot would make Mustache look inside another variable)",
      },
    ]);
  });

  it("rejects unknown fields and a missing name", async () => {
    expect(await failures({ variables: [], defaults: {} })).toEqual([
      { property: "name", reason: "required: the configuration name" },
      { property: "defaults", reason: expect.stringMatching(/^is not a known property: did you mean "defaultValues"\? Known here: branchId, .*\. Rename it\.$/) },
    ]);
  });

  it("skips values unknown at preview", async () => {
    expect(await failures({ ...base, defaultValues: { limit: UNKNOWN } })).toEqual([]);
    expect(await failures({ name: UNKNOWN, variables: UNKNOWN })).toEqual([]);
  });

  it("valueIssues reports every problem", () => {
    expect(valueIssues({ a: "x", b: "1" }, [{ name: "b", type: "int" }])).toEqual([
      { name: "a", message: '"a" is not a declared variable (declared: b): declare it in variables, e.g. {name: "a", type: "string"}, or remove this value' },
    ]);
  });
});

describe("VariableConfig diff", () => {
  const olds = { branchId: "default", configId: "11", name: "v", description: "", variables: [{ name: "a", type: "string" }], defaultValues: { a: "1" }, purgeOnDelete: false };

  it("updates in place when a default value changes", async () => {
    expect(await variables.diff(ctx, "default/keboola.variables/11", olds, { ...olds, configId: undefined, defaultValues: { a: "2" } })).toEqual({
      changes: true,
      replaces: [],
      deleteBeforeReplace: false,
    });
  });

  it("replaces on another branch or an explicit new configId, not when configId is omitted", async () => {
    expect((await variables.diff(ctx, "", olds, { ...olds, branchId: "123" })).replaces).toEqual(["branchId"]);
    expect((await variables.diff(ctx, "", olds, { ...olds, configId: "12" })).replaces).toEqual(["configId"]);
    expect(await variables.diff(ctx, "", olds, { ...olds, configId: undefined })).toMatchObject({ changes: false });
  });
});

describe("token permissions", () => {
  const token = (t: Partial<TokenInfo>): TokenInfo => ({ id: "1", description: "t", isMasterToken: false, canManageBuckets: false, owner: { id: 1, name: "p" }, ...t });

  it("lets a master token manage every component", () => {
    expect(componentAccessProblem(token({ isMasterToken: true, admin: { role: "admin" } }), "keboola.ex-generic-v2")).toBeUndefined();
  });

  it("refuses a master token of a read-only member", () => {
    expect(componentAccessProblem(token({ isMasterToken: true, admin: { role: "readOnly" } }), "keboola.variables")).toBe(
      'the token "t" (id 1) belongs to a project member with the read-only role',
    );
  });

  it("lets other tokens manage only the components in componentAccess", () => {
    expect(componentAccessProblem(token({ componentAccess: ["keboola.variables"] }), "keboola.variables")).toBeUndefined();
    expect(componentAccessProblem(token({ componentAccess: ["keboola.variables"] }), "keboola.ex-generic-v2")).toBe(
      'the token "t" (id 1) is not a master token and its componentAccess (keboola.variables) does not include "keboola.ex-generic-v2"',
    );
    expect(componentAccessProblem(token({}), "keboola.variables")).toBe('the token "t" (id 1) is not a master token and its componentAccess is empty');
  });
});

describe("JobRun inputs", () => {
  it("accepts values as a map and sends them as strings", () => {
    const p = jobRunInputsSchema.parse({ componentId: "keboola.ex-generic-v2", configId: "12", variableValuesData: { limit: 10, endpoint: "users" } });
    expect(jobRequest(p)).toEqual({
      component: "keboola.ex-generic-v2",
      config: "12",
      mode: "run",
      variableValuesData: { values: [{ name: "limit", value: "10" }, { name: "endpoint", value: "users" }] },
    });
  });

  it("sends the branch only for a dev branch, and omits empty values", () => {
    expect(jobRequest(jobRunInputsSchema.parse({ branchId: 123, componentId: "c", configId: "1", variableValuesData: {} }))).toEqual({ component: "c", config: "1", mode: "run", branchId: "123" });
    expect(jobRequest(jobRunInputsSchema.parse({ componentId: "c", configId: "1", variableValuesId: "77" }))).toEqual({ component: "c", config: "1", mode: "run", variableValuesId: "77" });
  });

  it("rejects both sources of values", async () => {
    const r = await jobRun.check(ctx, {}, { __resourceName: "run", componentId: "c", configId: "1", variableValuesData: { a: "1" }, variableValuesId: "2" });
    expect(r.failures).toEqual([{ property: "variableValuesId", reason: "set either variableValuesData or variableValuesId, not both (the Queue accepts one source of values)" }]);
  });

  it("runs again when triggers or values change, not when only the timeout does", async () => {
    const olds = { componentId: "c", configId: "1", branchId: "default", triggers: ["v1"], jobId: "5", status: "success" };
    expect(await jobRun.diff(ctx, "5", olds, { componentId: "c", configId: "1", branchId: "default", triggers: ["v2"] })).toEqual({ changes: true, replaces: ["triggers"], deleteBeforeReplace: false });
    expect((await jobRun.diff(ctx, "5", olds, { componentId: "c", configId: "1", branchId: "default", triggers: ["v1"], variableValuesData: { a: "1" } })).replaces).toEqual([
      "variableValuesData",
    ]);
    expect(await jobRun.diff(ctx, "5", olds, { componentId: "c", configId: "1", branchId: "default", triggers: ["v1"], timeoutSeconds: 30 })).toEqual({
      changes: true,
      replaces: [],
      deleteBeforeReplace: false,
    });
    expect(await jobRun.diff(ctx, "5", olds, { componentId: "c", configId: "1", branchId: "default", triggers: ["v1"] })).toMatchObject({ changes: false });
  });

  it("does not run again for a configuration id unknown at preview", async () => {
    const olds = { componentId: "c", configId: "1", branchId: "default", triggers: ["v1"], jobId: "5", status: "success" };
    expect(await jobRun.diff(ctx, "5", olds, { componentId: "c", configId: UNKNOWN, branchId: "default", triggers: ["v1"] })).toMatchObject({ changes: false });
    expect((await jobRun.diff(ctx, "5", olds, { componentId: "c", configId: UNKNOWN, branchId: "default", triggers: UNKNOWN })).replaces).toEqual([]);
  });
});

describe("variables as read from the service and as written by users", () => {
  const message = (r: { success: boolean; error?: { issues: Array<{ message: string }> } }) => r.error?.issues.map((i) => i.message);

  it("explains a variable name that is not a string, or empty", () => {
    expect(message(variableNameSchema.safeParse(5))).toEqual(["must be a string (the variable name)"]);
    expect(message(variableNameSchema.safeParse(""))).toEqual(["must not be empty", expect.stringMatching(/^must consist of letters, digits/)]);
  });

  it("explains values that are not strings, numbers or booleans, and a map that is not an object", () => {
    expect(message(variableValuesSchema.safeParse({ limit: { n: 1 } }))).toEqual(["must be a string (or a number, written as its text)"]);
    expect(message(variableValuesSchema.safeParse(["limit"]))).toEqual(["must be an object of variable name to value"]);
  });

  it("reads declarations with a string name, anything but int as string, and nothing from a value that is no list", () => {
    expect(declarationsIn([{ name: "limit", type: "int" }, { name: "q", type: "text" }, { name: 5 }, "x", null, { type: "int" }])).toEqual([
      { name: "limit", type: "int" },
      { name: "q", type: "string" },
    ]);
    expect(declarationsIn({ name: "limit" })).toEqual([]);
    expect(declarationsIn(undefined)).toEqual([]);
  });

  it("reads a values row as {name: value}: a missing or null value is empty, a number is its text, entries without a name are skipped", () => {
    expect(valuesIn([{ name: "limit", value: 10 }, { name: "q" }, { name: "r", value: null }, { name: "s", value: "x" }, { value: "orphan" }, 7, null])).toEqual({
      limit: "10",
      q: "",
      r: "",
      s: "x",
    });
    expect(valuesIn({ name: "limit", value: "1" })).toEqual({});
  });

  it("says no variables are declared when a value names one and none are", () => {
    expect(valueIssues({ limit: "1" }, [])).toEqual([
      { name: "limit", message: '"limit" is not a declared variable (declared: none): declare it in variables, e.g. {name: "limit", type: "string"}, or remove this value' },
    ]);
  });
});
