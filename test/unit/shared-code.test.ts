import { describe, expect, it } from "vitest";
import { codeOf, linkedRowIds, resolveSharedCode, rowSharedCodeOf, sharedCodeOf } from "../../keboola/shared-code";

// Links to shared code as the job runner resolves them (provider/validation/shared-code.ts).

describe("sharedCodeOf", () => {
  it("needs both shared_code_id and a non-empty shared_code_row_ids", () => {
    expect(sharedCodeOf({ shared_code_id: "1", shared_code_row_ids: ["a", "b"] })).toEqual({ configId: "1", rowIds: ["a", "b"] });
    expect(sharedCodeOf({ shared_code_id: 7, shared_code_row_ids: [123456] })).toEqual({ configId: "7", rowIds: ["123456"] });
    // keboola/configuration-variables-resolver tests/SharedCodeResolverTest.php: testResolveSharedCodeNoConfiguration, ...NoRows
    expect(sharedCodeOf({ shared_code_row_ids: ["a"] })).toBeUndefined();
    expect(sharedCodeOf({ shared_code_id: "1" })).toBeUndefined();
    expect(sharedCodeOf({ shared_code_id: "1", shared_code_row_ids: [] })).toBeUndefined();
    expect(sharedCodeOf({ shared_code_id: "", shared_code_row_ids: ["a"] })).toBeUndefined();
  });

  it("keeps the row ids that are text or numbers and not empty", () => {
    expect(sharedCodeOf({ shared_code_id: "1", shared_code_row_ids: ["", null, { id: "x" }, true, "a", 2] })).toEqual({ configId: "1", rowIds: ["a", "2"] });
    expect(sharedCodeOf({ shared_code_id: "1", shared_code_row_ids: ["", null] })).toBeUndefined();
  });

  it("takes a row's own keys over the root's (a job's configuration is the root merged with the row)", () => {
    const root = { shared_code_id: "1", shared_code_row_ids: ["a"] };
    expect(rowSharedCodeOf(root, {})).toEqual({ configId: "1", rowIds: ["a"] });
    expect(rowSharedCodeOf(root, { shared_code_row_ids: ["b"] })).toEqual({ configId: "1", rowIds: ["b"] });
    expect(rowSharedCodeOf({}, { parameters: {} })).toBeUndefined();
  });
});

describe("linkedRowIds", () => {
  it("reads {{id}} with or without spaces, in the order of shared_code_row_ids, each once", () => {
    expect(linkedRowIds("{{ b }} and {{a}} and {{b}}", ["a", "b"])).toEqual(["a", "b"]);
    expect(linkedRowIds("{{c}} {{a.b}} {{#a}}", ["a", "b"])).toEqual([]);
    expect(linkedRowIds("{{a}}", ["a", "b", "a"])).toEqual(["a"]);
  });
});

describe("codeOf", () => {
  it("reads code_content as a list of strings or one string", () => {
    expect(codeOf({ code_content: ["x", "y"] })).toEqual(["x", "y"]);
    expect(codeOf({ code_content: "bar" })).toEqual(["bar"]);
    expect(codeOf({ other: "x" })).toBeUndefined();
    expect(codeOf({ code_content: ["x", 1] })).toBeUndefined();
    expect(codeOf("x")).toBeUndefined();
  });
});

describe("resolveSharedCode", () => {
  // Input and expected output of keboola/configuration-variables-resolver
  // tests/SharedCodeResolverTest.php testResolveSharedCode (the runner's resolver).
  const code: Record<string, string[]> = {
    first_code: ["SELECT * FROM {{tab1}} LEFT JOIN {{tab2}} ON b.a_id = a.id"],
    secondCode: ["bar"],
  };
  const first = code.first_code[0];

  it("replaces linking items of lists of scalars, and nothing else", () => {
    const configuration = {
      shared_code_id: "123",
      shared_code_row_ids: ["first_code", "secondCode"],
      parameters: {
        simple_code: ["{{secondCode}}"],
        multiple_codes: ["{{ first_code }}", "and {{ secondCode }}."],
        non_replaced_code: "{{secondCode}}",
        child: { also_non_replaced: "{{secondCode}}" },
        "Some Inline Variable": ["some text {{some_var}} some text {{some_other_var}}"],
        "Variables With Code": ["some text {{some_var}} some text {{some_other_var}} and {{first_code}}"],
        "Variables With 2 Codes": ["some text {{some_var}} some text {{some_other_var}} and {{first_code}} and {{secondCode}}"],
        "Variables With 3 Codes": ["some text {{some_var}} some text {{some_other_var}} and {{first_code}} and {{secondCode}}", "{{first_code}}"],
        // 'mixed array' of the PHP test (a list with a key: a JSON object), and an array holding an object.
        "mixed array": { "0": "{{secondCode}}", keyed: "{{secondCode}}", "1": "{{first_code}}" },
        mixed: ["{{secondCode}}", { keyed: "{{secondCode}}" }, "{{first_code}}"],
      },
    };
    expect(resolveSharedCode(configuration, ["first_code", "secondCode"], (id) => code[id])).toEqual({
      shared_code_id: "123",
      shared_code_row_ids: ["first_code", "secondCode"],
      parameters: {
        simple_code: ["bar"],
        multiple_codes: [first, "bar"],
        non_replaced_code: "{{secondCode}}",
        child: { also_non_replaced: "{{secondCode}}" },
        "Some Inline Variable": ["some text {{some_var}} some text {{some_other_var}}"],
        "Variables With Code": [first],
        "Variables With 2 Codes": [first, "bar"],
        "Variables With 3 Codes": [first, "bar", first],
        "mixed array": { "0": "{{secondCode}}", keyed: "{{secondCode}}", "1": "{{first_code}}" },
        mixed: ["{{secondCode}}", { keyed: "{{secondCode}}" }, "{{first_code}}"],
      },
    });
  });

  it("keeps numbers and booleans of a linking list as they are", () => {
    expect(resolveSharedCode({ p: [1, true, "{{secondCode}}", false] }, ["secondCode"], (id) => code[id])).toEqual({ p: [1, true, "bar", false] });
  });

  it("resolves numeric row ids (testResolveSharedCodeNumericIds)", () => {
    const out = resolveSharedCode({ "first code": ["{{123456}}"], "second code": ["{{1234567}}"] }, ["123456", "1234567"], (id) => (id === "123456" ? [first] : ["bar"]));
    expect(out).toEqual({ "first code": [first], "second code": ["bar"] });
  });
});
