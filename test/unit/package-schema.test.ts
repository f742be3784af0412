// The translation of the kinds' zod schemas into a Pulumi package schema
// (provider/plugin/package-schema.ts). `pulumi schema check` of the real schema.json is
// test/e2e/package-schema.e2e.test.ts.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { packageSchema, type SchemaSource } from "../../provider/plugin/package-schema";

const kind = (type: string, inputs: z.ZodObject, extra: Partial<SchemaSource> = {}): SchemaSource => ({
  type,
  description: `A ${type}.`,
  inputs,
  outputs: z.object({ id: z.string().describe("Its id.") }),
  secretOutputs: [],
  lifecycle: { replace: [] },
  ...extra,
});

const mode = z.enum(["fast", "safe"]).describe("How.");

describe("package schema", () => {
  it("names nested objects by their place, array items in the singular, and reuses a name for an alike object", () => {
    const task = z.object({ name: z.string().describe("Task name.") }).describe("A task.");
    const s = packageSchema(
      [kind("Flow", z.object({ phases: z.array(z.object({ tasks: z.array(task).describe("Its tasks.") }).describe("A phase.")).describe("Phases."), first: task.describe("The first task.") }))],
      "1.2.3",
    );
    expect(s.resources["keboola:index:Flow"].inputProperties.phases).toEqual({ type: "array", items: { $ref: "#/types/keboola:index:FlowPhase" }, description: "Phases." });
    expect(s.types["keboola:index:FlowPhase"]).toEqual({ type: "object", description: "A phase.", properties: { tasks: { type: "array", items: { $ref: "#/types/keboola:index:FlowPhaseTask" }, description: "Its tasks." } }, required: ["tasks"] });
    // Alike but for its description: the same type.
    expect(s.resources["keboola:index:Flow"].inputProperties.first).toEqual({ $ref: "#/types/keboola:index:FlowPhaseTask", description: "The first task." });
    expect(s.version).toBe("1.2.3");
  });

  it("makes a string of fixed values a named enum, shared by fields of the same values", () => {
    const s = packageSchema([kind("Job", z.object({ mode, fallback: mode.optional().describe("Fallback.") }))], "0.1.0");
    expect(s.types["keboola:index:JobMode"]).toEqual({ type: "string", description: "How.", enum: [{ value: "fast" }, { value: "safe" }] });
    expect(s.resources["keboola:index:Job"].inputProperties.fallback).toEqual({ $ref: "#/types/keboola:index:JobMode", description: "Fallback." });
    expect(s.resources["keboola:index:Job"].requiredInputs).toEqual(["mode"]);
  });

  it("turns unions into oneOf, T | null into T, maps into additionalProperties, free JSON into Any", () => {
    type Json = string | number | boolean | null | Json[] | { [k: string]: Json };
    const json: z.ZodType<Json> = z.lazy(() => z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(json), z.record(z.string(), json)]));
    const s = packageSchema(
      [
        kind(
          "Thing",
          z.object({
            size: z.union([z.string(), z.number()]).default(1).describe("Size."),
            note: z.string().nullable().describe("Note."),
            labels: z.record(z.string(), z.number()).describe("Labels."),
            parameters: json.describe("Parameters."),
            loose: z.record(z.string(), z.unknown()).describe("Anything."),
            target: z.discriminatedUnion("kind", [z.object({ kind: z.literal("table").describe("Kind."), id: z.string().describe("Id.") }), z.object({ kind: z.literal("file").describe("Kind."), path: z.string().describe("Path.") })]).describe("Target."),
          }),
        ),
      ],
      "0.1.0",
    );
    const p = s.resources["keboola:index:Thing"].inputProperties;
    expect(p.size).toEqual({ oneOf: [{ type: "string" }, { type: "number" }], description: "Size.", default: 1 });
    expect(p.note).toEqual({ type: "string", description: "Note." });
    expect(p.labels).toEqual({ type: "object", additionalProperties: { type: "number" }, description: "Labels." });
    expect(p.parameters).toEqual({ $ref: "pulumi.json#/Any", description: "Parameters." });
    expect(p.loose).toEqual({ $ref: "pulumi.json#/Any", description: "Anything." });
    expect(p.target).toMatchObject({ oneOf: [{ $ref: "#/types/keboola:index:ThingTargetTable" }, { $ref: "#/types/keboola:index:ThingTargetFile" }], description: "Target." });
    expect(s.types["keboola:index:ThingTargetFile"]).toMatchObject({ properties: { kind: { type: "string", const: "file" }, path: { type: "string" } } });
  });

  it("makes a discriminated union a tagged union: a type per value of its tag, and the tag's mapping to them", () => {
    const name = z.string().describe("Name.");
    const column = z.discriminatedUnion("type", [
      z.object({ type: z.enum(["uuid", "ip"]).describe("Generated."), name }).strict(),
      z.object({ type: z.literal("path").describe("From the body."), name, path: z.string().describe("Path.") }).strict(),
    ]);
    const s = packageSchema([kind("Sink", z.object({ columns: z.array(column).describe("Columns."), first: column.optional().describe("First.") }))], "0.1.0");
    const tagged = {
      oneOf: [{ $ref: "#/types/keboola:index:SinkColumnUuid" }, { $ref: "#/types/keboola:index:SinkColumnIp" }, { $ref: "#/types/keboola:index:SinkColumnPath" }],
      discriminator: { propertyName: "type", mapping: { uuid: "#/types/keboola:index:SinkColumnUuid", ip: "#/types/keboola:index:SinkColumnIp", path: "#/types/keboola:index:SinkColumnPath" } },
    };
    const p = s.resources["keboola:index:Sink"].inputProperties;
    expect(p.columns).toEqual({ type: "array", items: tagged, description: "Columns." });
    // The same union elsewhere: the same types.
    expect(p.first).toEqual({ ...tagged, description: "First." });
    // The variant of several tag values is a type per value, its tag fixed; no enum is left of it.
    expect(s.types["keboola:index:SinkColumnIp"]).toEqual({
      type: "object",
      description: 'The Sink.columns[] object of type "ip".',
      properties: { type: { type: "string", const: "ip", description: "Generated." }, name: { type: "string", description: "Name." } },
      required: ["type", "name"],
    });
    expect(s.types["keboola:index:SinkColumnPath"]).toMatchObject({ properties: { type: { type: "string", const: "path" }, path: { type: "string" } } });
    expect(Object.keys(s.types).sort()).toEqual(["keboola:index:SinkColumnIp", "keboola:index:SinkColumnPath", "keboola:index:SinkColumnUuid"]);
  });

  it("keeps a union that is not discriminated, or whose tag is not a string, a plain oneOf", () => {
    const a = z.object({ n: z.literal(1).describe("N."), x: z.string().describe("X.") });
    const b = z.object({ n: z.literal(2).describe("N."), y: z.string().describe("Y.") });
    const s = packageSchema([kind("Job", z.object({ byNumber: z.discriminatedUnion("n", [a, b]).describe("By number."), plain: z.union([a, b]).describe("Plain.") }))], "0.1.0");
    const p = s.resources["keboola:index:Job"].inputProperties;
    expect(p.byNumber).not.toHaveProperty("discriminator");
    expect(p.byNumber.oneOf).toHaveLength(2);
    expect(p.plain).not.toHaveProperty("discriminator");
  });

  it("marks secret outputs secret and schema-marked replacements replaceOnChanges, and lists outputs' required", () => {
    const s = packageSchema(
      [kind("Source", z.object({ sourceId: z.string().describe("Id.") }), { outputs: z.object({ url: z.string().describe("Ingestion URL.") }), secretOutputs: ["url"], lifecycle: { replace: ["sourceId"] } })],
      "0.1.0",
    );
    const r = s.resources["keboola:index:Source"];
    expect(r.properties.url).toEqual({ type: "string", description: "Ingestion URL.", secret: true });
    expect(r.inputProperties.sourceId).toEqual({ type: "string", description: "Id.", replaceOnChanges: true });
    expect(r.required).toEqual(["sourceId", "url"]);
    expect(s.config.variables.token.secret).toBe(true);
  });

  it("refuses a field with no description, naming every such field", () => {
    const make = () => packageSchema([kind("Bare", z.object({ a: z.string(), b: z.object({ c: z.number() }).describe("B.") }))], "0.1.0");
    expect(make).toThrow("package schema: no description for Bare.a, Bare.b.c: give each field's zod schema a .describe()");
  });
});
