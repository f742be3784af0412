import { describe, expect, it } from "vitest";
import type { JsonObject } from "../../keboola/json";
import { loadVariables, missingPlaceholdersError, render, resolveLinks, VariablesError, type VariablesSource } from "../../emulator/queue/variables";

// The emulator's job runner rules for variables and shared code (emulator/queue/variables.ts),
// called directly: the texts are keboola/configuration-variables-resolver's (the file's header
// names its sources); test/emulator/queue.test.ts runs the same rules through real jobs.

const VARS: JsonObject = { variables: [{ name: "city", type: "string" }, { name: "limit", type: "int" }] };
const ROWS: Record<string, JsonObject> = {
  prague: { values: [{ name: "city", value: "Prague" }, { name: "limit", value: 5 }] },
  "no-values": { values: "none" },
};
const source = (variables: JsonObject | undefined = VARS): VariablesSource => ({
  variablesConfiguration: (id) => (id === "vars" ? variables : undefined),
  valuesRow: (id, rowId) => (id === "vars" ? ROWS[rowId] : undefined),
});
const failure = (run: () => unknown): string => {
  try {
    run();
  } catch (e) {
    expect(e).toBeInstanceOf(VariablesError);
    return (e as Error).message;
  }
  throw new Error("no error");
};
const inline = (values: Array<{ name: unknown; value: unknown }>) => ({ values });

describe("loadVariables", () => {
  it("uses no variables without a variables_id (empty, or neither text nor number)", () => {
    for (const variables_id of [undefined, null, "", { id: "vars" }, true]) {
      const configuration: JsonObject = variables_id === undefined ? {} : { variables_id };
      expect(loadVariables(configuration, "prague", null, source())).toBeNull();
    }
  });

  it("reads the values row named by the job, else the configuration's variables_values_id (a number is an id too)", () => {
    expect(loadVariables({ variables_id: "vars" }, "prague", null, source())).toEqual({ city: "Prague", limit: "5" });
    expect(loadVariables({ variables_id: "vars", variables_values_id: "prague" }, null, null, source())).toEqual({ city: "Prague", limit: "5" });
    expect(failure(() => loadVariables({ variables_id: "vars", variables_values_id: 7 }, null, null, source()))).toBe(
      'Cannot read variable values "7" of variables configuration "vars".',
    );
  });

  it("takes inline values first; an empty list is none", () => {
    const values = inline([{ name: "city", value: "Brno" }, { name: "limit", value: null }, { name: "extra" , value: undefined }]);
    expect(loadVariables({ variables_id: "vars" }, null, values, source())).toEqual({ city: "Brno", limit: "", extra: "" });
    expect(loadVariables({ variables_id: "vars" }, "prague", inline([]), source())).toEqual({ city: "Prague", limit: "5" });
    expect(loadVariables({ variables_id: "vars" }, "prague", { values: null }, source())).toEqual({ city: "Prague", limit: "5" });
  });

  it("refuses what the runner refuses, with its texts", () => {
    const both = () => loadVariables({ variables_id: "vars" }, "prague", inline([{ name: "city", value: "x" }]), source());
    expect(failure(both)).toBe("Only one of variableValuesId and variableValuesData can be entered.");
    expect(failure(() => loadVariables({ variables_id: "other" }, "prague", null, source()))).toBe('Variable configuration cannot be read: Configuration "other" not found');
    expect(failure(() => loadVariables({ variables_id: "vars" }, "prague", null, source({ variables: "x" })))).toBe(
      'Variable configuration is invalid: The child config "variables" under "configuration" must be configured.',
    );
    expect(failure(() => loadVariables({ variables_id: "vars" }, null, null, source()))).toBe('No variable values provided for variables configuration "vars".');
    expect(failure(() => loadVariables({ variables_id: "vars" }, "no-values", null, source()))).toBe(
      'Variable values configuration is invalid: The child config "values" under "configuration" must be configured.',
    );
    expect(failure(() => loadVariables({ variables_id: "vars" }, null, inline([{ name: "", value: "x" }]), source()))).toBe("Variable name cannot be empty.");
    expect(failure(() => loadVariables({ variables_id: "vars" }, null, { values: ["city"] as never }, source()))).toBe("Variable name cannot be empty.");
    expect(failure(() => loadVariables({ variables_id: "vars" }, null, inline([{ name: "city", value: "x" }]), source()))).toBe('No value provided for variable "limit".');
  });
});

describe("render", () => {
  const values = { city: 'Pra"gue', n: "5" };

  it("renders {{name}} JSON-escaped and {{{name}}} / {{& name}} as they are, with or without spaces", () => {
    const missing: string[] = [];
    const out = render({ a: "{{city}}", b: "{{ city }}", c: "{{{n}}}", d: "{{{ n }}}", e: "{{&n}}", f: "{{ & n }}" }, values, missing);
    expect(out).toEqual({ a: 'Pra"gue', b: 'Pra"gue', c: "5", d: "5", e: "5", f: "5" });
    expect(missing).toEqual([]);
    // A raw value goes into the configuration's JSON text as it is: its escapes are read there.
    const escapes = { v: "a\\nb" };
    expect(render({ escaped: "{{v}}", triple: "{{{v}}}", amp: "{{& v}}" }, escapes, [])).toEqual({ escaped: "a\\nb", triple: "a\nb", amp: "a\nb" });
  });

  it("leaves sections and comments, and lists every placeholder without a value (rendered empty)", () => {
    const missing: string[] = [];
    expect(render({ a: "{{#city}}x{{/city}} {{! note}}", b: "[{{nope}}]", c: "{{{ gone }}}" }, values, missing)).toEqual({
      a: "{{#city}}x{{/city}} {{! note}}",
      b: "[]",
      c: "",
    });
    expect(missing).toEqual(["nope", "gone"]);
    expect(missingPlaceholdersError(missing).message).toBe('Missing values for placeholders: "nope, gone"');
  });

  it("a raw value that breaks the JSON fails with the parser's text", () => {
    expect(failure(() => render({ a: "{{{n}}}" }, { n: '"' }, []))).toMatch(/^Variable replacement resulted in invalid configuration, error: \S/);
  });
});

describe("resolveLinks", () => {
  const rows = new Map<string, JsonObject>([
    ["hello", { code_content: "print('hi')" }],
    ["empty", { code_content: 5 }],
  ]);
  const shared = { sharedCodeRows: (id: string) => (id === "shared" ? rows : undefined) };

  it("replaces links with the rows' code", () => {
    expect(resolveLinks({ code: ["{{hello}}", "x"] }, { configId: "shared", rowIds: ["hello"] }, shared)).toEqual({ code: ["print('hi')", "x"] });
  });

  it("fails on a missing configuration or row, or a row without code", () => {
    expect(failure(() => resolveLinks({}, { configId: "other", rowIds: [] }, shared))).toBe("Shared code configuration cannot be read: Configuration other not found");
    expect(failure(() => resolveLinks({}, { configId: "shared", rowIds: ["gone"] }, shared))).toBe("Shared code configuration cannot be read: Row gone not found");
    expect(failure(() => resolveLinks({}, { configId: "shared", rowIds: ["empty"] }, shared))).toBe(
      'Shared code configuration is invalid: The child config "code_content" under "configuration" must be configured.',
    );
  });
});
