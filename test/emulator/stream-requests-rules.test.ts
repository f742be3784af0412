import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { GoaErrors, StreamError } from "../../emulator/stream/errors";
import { EOF, firstValue } from "../../emulator/stream/go-decoder";
import { asSentence } from "../../emulator/stream/gofmt";
import {
  BODIES,
  decodeBody,
  validateCreateSink,
  validateCreateSource,
  validateIdParam,
  validateSettingsPatch,
  validateUpdateSink,
  validateUpdateSource,
} from "../../emulator/stream/validation";
// Recorded by running Go's encoding/json as goa's request decoder runs it (json.NewDecoder(body)
// .Decode) on the Stream API's generated request body types: test/emulator/fixtures/
// go-decoder-recorder (`go run . > ../go-decoder-recorded.json`).
import recorded from "./fixtures/go-decoder-recorded.json";

// How the emulator decodes Stream API request bodies (emulator/stream/go-decoder.ts and
// validation.ts decodeBody), case by case against Go: what is accepted and how it reads, and each
// error text. The routes add only the error writer's sentence form.

type Body = keyof typeof BODIES;
interface Case {
  body: string;
  text: string;
  error?: string;
  decoded?: unknown;
}

const app = new Hono();
app.post("/:body", async (c) => {
  try {
    return c.json({ decoded: await decodeBody(c, c.req.param("body") as Body) });
  } catch (e) {
    if (e instanceof StreamError) return c.json({ error: e.body() });
    throw e;
  }
});

async function decode(body: string, text: string): Promise<{ decoded?: unknown; error?: unknown }> {
  const res = await app.request(`/${body}`, { method: "POST", body: new TextEncoder().encode(text) });
  return (await res.json()) as { decoded?: unknown; error?: unknown };
}

/** A decoded body as Go marshals it back: nil pointers (null) and empty lists are omitted (omitempty). */
function asMarshalled(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(asMarshalled);
  if (v && typeof v === "object") {
    return Object.fromEntries(
      Object.entries(v)
        .filter(([, x]) => x !== null && !(Array.isArray(x) && x.length === 0))
        .map(([k, x]) => [k, asMarshalled(x)]),
    );
  }
  return v;
}

const cases = recorded as Case[];

describe("request bodies decoded as Go's json.Decoder decodes them (recorded)", () => {
  it("has the recorded cases of every body", () => {
    expect(new Set(cases.map((c) => c.body))).toEqual(new Set(Object.keys(BODIES)));
  });

  it.each(cases.filter((c) => c.error === undefined).map((c) => [c.body, c.text, c] as const))("%s accepts %j", async (body, text, c) => {
    const { decoded, error } = await decode(body, text);
    expect(error).toBeUndefined();
    expect(asMarshalled(decoded)).toEqual(c.decoded ?? {});
  });

  it.each(cases.filter((c) => c.error !== undefined).map((c) => [c.body, c.text, c.error!] as const))("%s refuses %j: %s", async (body, text, error) => {
    const expected =
      error === EOF
        ? { statusCode: 400, error: "stream.api.missingPayload", message: "Missing required payload." }
        : { statusCode: 400, error: "stream.api.decodePayload", message: asSentence(error) };
    expect((await decode(body, text)).error).toEqual(expected);
  });
});

describe("firstValue", () => {
  it("gives the bytes of the first value, after any whitespace, and nothing past it", () => {
    const value = '{"a":[1,-2.5e+3,"x\\"y",true,false,null]}';
    expect(firstValue(new TextEncoder().encode(` \n${value} {"b":`))).toEqual({ start: 2, end: 2 + value.length });
    expect(firstValue(new TextEncoder().encode("0 1"))).toEqual({ start: 0, end: 1 });
  });

  it("quotes a byte above 0x7f as the code point of that byte, as quoteChar does", () => {
    expect(firstValue(Uint8Array.of(0x80))).toEqual({ error: "invalid character '\\u0080' looking for beginning of value" });
    expect(firstValue(Uint8Array.of(0xff))).toEqual({ error: "invalid character 'ÿ' looking for beginning of value" });
    expect(firstValue(Uint8Array.of(0x5c))).toEqual({ error: "invalid character '\\\\' looking for beginning of value" });
  });
});

// Goa's generated validations, in their order (keboola/keboola-as-code internal/pkg/service/stream/
// api/gen/http/stream/server/types.go: ValidateCreateSourceRequestBody, ValidateCreateSinkRequestBody,
// ValidateTableSinkCreateRequestBody, ValidateTableMappingRequestBody, ValidateTableColumnRequestBody,
// ValidateTableColumnTemplateRequestBody, ValidateSettingPatchRequestBody), with goa's texts as
// the recorded cases of stream-api.test.ts show them.
describe("request validations", () => {
  const problems = (errs: GoaErrors) => errs.problems.map((p) => `${p.code}: ${p.message}`);
  const long = (n: number) => "x".repeat(n);

  it("source bodies: required fields, then lengths and the type, in the generated order", () => {
    expect(problems(validateCreateSource({}))).toEqual(['missingField: "type" is missing from body', 'missingField: "name" is missing from body']);
    // A JSON null leaves a field unset, as absent does.
    expect(problems(validateCreateSource({ type: null, name: null }))).toEqual(['missingField: "type" is missing from body', 'missingField: "name" is missing from body']);
    expect(problems(validateCreateSource({ sourceId: "", type: "x", name: "", description: long(4097) }))).toEqual([
      'invalidLength: length of body.sourceId must be greater or equal than 1 but got value "" (len=0)',
      'invalidEnumValue: value of body.type must be one of "http", "otlp" but got value "x"',
      'invalidLength: length of body.name must be greater or equal than 1 but got value "" (len=0)',
      `invalidLength: length of body.description must be lesser or equal than 4096 but got value "${long(4097)}" (len=4097)`,
    ]);
    expect(problems(validateCreateSource({ sourceId: long(49), type: "http", name: long(41), description: long(4096) }))).toEqual([
      `invalidLength: length of body.sourceId must be lesser or equal than 48 but got value "${long(49)}" (len=49)`,
      `invalidLength: length of body.name must be lesser or equal than 40 but got value "${long(41)}" (len=41)`,
    ]);
    expect(problems(validateCreateSource({ sourceId: long(48), type: "otlp", name: long(40) }))).toEqual([]);
    // An update requires nothing.
    expect(problems(validateUpdateSource({}))).toEqual([]);
    expect(problems(validateUpdateSource({ type: "x", name: "", description: long(4097) })).map((p) => p.split(":")[0])).toEqual(["invalidEnumValue", "invalidLength", "invalidLength"]);
  });

  it("sink bodies: the table, its mapping, each column and template", () => {
    expect(problems(validateCreateSink({}))).toEqual(['missingField: "type" is missing from body', 'missingField: "name" is missing from body']);
    expect(problems(validateCreateSink({ type: "stream", name: "s", sinkId: "", allowedSignals: ["logs", "spans"], table: {} }))).toEqual([
      'invalidLength: length of body.sinkId must be greater or equal than 1 but got value "" (len=0)',
      'invalidEnumValue: value of body.type must be one of "table" but got value "stream"',
      'invalidEnumValue: value of body.allowedSignals[1].allowedSignals[*] must be one of "logs", "metrics", "traces" but got value "spans"',
      'missingField: "type" is missing from body.table',
      'missingField: "tableId" is missing from body.table',
      'missingField: "mapping" is missing from body.table',
    ]);
    expect(problems(validateCreateSink({ type: "table", name: "s", table: { type: "x", tableId: "in.c-a.b", mapping: {} } }))).toEqual([
      'invalidEnumValue: value of body.table.type must be one of "keboola" but got value "x"',
      'missingField: "columns" is missing from body.table.mapping',
      "invalidLength: length of body.table.mapping.columns must be greater or equal than 1 but got value []*server.TableColumnRequestBody(nil) (len=0)",
    ]);
    const columns = [{ type: null, name: null }, null, { type: "json", name: "j" }, { type: "template", name: "t", template: {} }, { type: "template", name: "u", template: { language: "lua", content: "" } }];
    expect(problems(validateCreateSink({ type: "table", name: "s", table: { type: "keboola", tableId: "in.c-a.b", mapping: { columns } } }))).toEqual([
      'missingField: "type" is missing from body.table.mapping.columns[0]',
      'missingField: "name" is missing from body.table.mapping.columns[0]',
      'invalidEnumValue: value of body.table.mapping.columns[2].type must be one of "uuid", "datetime", "ip", "body.table.mapping.columns[2]", "headers", "path", "template" but got value "json"',
      'missingField: "language" is missing from body.table.mapping.columns[3].template',
      'missingField: "content" is missing from body.table.mapping.columns[3].template',
      'invalidEnumValue: value of body.table.mapping.columns[4].template.language must be one of "jsonnet" but got value "lua"',
      'invalidLength: length of body.table.mapping.columns[4].template.content must be greater or equal than 1 but got value "" (len=0)',
    ]);
    const nulls = { type: "table", name: "s", table: { type: "keboola", tableId: "t", mapping: { columns: [{ type: "template", name: "t", template: { language: null, content: null } }] } } };
    expect(problems(validateCreateSink(nulls))).toEqual([
      'missingField: "language" is missing from body.table.mapping.columns[0].template',
      'missingField: "content" is missing from body.table.mapping.columns[0].template',
    ]);
    expect(problems(validateCreateSink({ ...nulls, table: { type: "keboola", tableId: "t", mapping: { columns: null } } }))[0]).toBe('missingField: "columns" is missing from body.table.mapping');
    const template = (content: string) => ({ type: "table", name: "s", table: { type: "keboola", tableId: "t", mapping: { columns: [{ type: "template", name: "t", template: { language: "jsonnet", content } }] } } });
    expect(problems(validateCreateSink(template(long(4096))))).toEqual([]);
    expect(problems(validateCreateSink(template(long(4097))))[0]).toMatch(/^invalidLength: length of body\.table\.mapping\.columns\[0\]\.template\.content must be lesser or equal than 4096 /);
  });

  it("counts columns: one at least, 100 at most, printed as Go prints the slice", () => {
    const sink = (columns: unknown[]) => ({ type: "table", name: "s", table: { type: "keboola", tableId: "t", mapping: { columns } } });
    const col = { type: "uuid", name: "c" };
    expect(problems(validateCreateSink(sink([])))).toEqual(["invalidLength: length of body.table.mapping.columns must be greater or equal than 1 but got value []*server.TableColumnRequestBody{} (len=0)"]);
    expect(problems(validateCreateSink(sink(Array(100).fill(col))))).toEqual([]);
    const [tooMany] = problems(validateCreateSink(sink(Array(101).fill(col))));
    const pointer = String.raw`\(\*server\.TableColumnRequestBody\)\(0x[0-9a-f]+\)`;
    expect(tooMany).toMatch(new RegExp(String.raw`^invalidLength: length of body\.table\.mapping\.columns must be lesser or equal than 100 but got value \[\]\*server\.TableColumnRequestBody\{${pointer}(, ${pointer}){100}\} \(len=101\)$`));
    // Each element has its own address.
    expect(new Set(tooMany.match(/0x[0-9a-f]+/g)).size).toBe(101);
  });

  it("an update's table requires nothing, but is checked", () => {
    expect(problems(validateUpdateSink({ table: {} }))).toEqual([]);
    expect(problems(validateUpdateSink({ type: "x", name: "", description: long(4097), allowedSignals: ["x"], table: { type: "y", mapping: { columns: [{ type: "uuid" }] } } }))).toEqual([
      'invalidEnumValue: value of body.type must be one of "table" but got value "x"',
      'invalidLength: length of body.name must be greater or equal than 1 but got value "" (len=0)',
      `invalidLength: length of body.description must be lesser or equal than 4096 but got value "${long(4097)}" (len=4097)`,
      'invalidEnumValue: value of body.allowedSignals[0].allowedSignals[*] must be one of "logs", "metrics", "traces" but got value "x"',
      'invalidEnumValue: value of body.table.type must be one of "keboola" but got value "y"',
      'missingField: "name" is missing from body.table.mapping.columns[0]',
    ]);
  });

  it("settings patches: each item's key is required and not empty; items that are null are skipped", () => {
    expect(problems(validateSettingsPatch({ settings: [{ key: null, value: 1 }, null, { key: "", value: 1 }, { key: long(500), value: 1 }] }))).toEqual([
      'missingField: "key" is missing from body.settings[0]',
      'invalidLength: length of body.settings[2].key must be greater or equal than 1 but got value "" (len=0)',
    ]);
    expect(problems(validateSettingsPatch({}))).toEqual([]);
  });

  it("path ids: 1 to 48 characters", () => {
    const errs = new GoaErrors();
    validateIdParam(errs, "sourceId", "");
    validateIdParam(errs, "sinkId", long(49));
    validateIdParam(errs, "sinkId", long(48));
    expect(problems(errs)).toEqual([
      'invalidLength: length of sourceId must be greater or equal than 1 but got value "" (len=0)',
      `invalidLength: length of sinkId must be lesser or equal than 48 but got value "${long(49)}" (len=49)`,
    ]);
  });
});
