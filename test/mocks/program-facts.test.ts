import { beforeAll, describe, expect, it } from "vitest";
import * as pulumi from "@pulumi/pulumi";
import * as keboola from "../../provider/index";
import { declareBranch, declareSource } from "../../provider/program/declarations";

// What the resource classes tell the provider about the objects a resource references from the
// same program (the hidden input `__program`, see provider/lifecycle/program.ts), under Pulumi's
// mocks: the facts test/provider/refusals.test.ts passes to `check` are the ones a program sends.
// And two sinks of one Source output that derive one sink id are refused when declared.

const created: pulumi.runtime.MockResourceArgs[] = [];

beforeAll(async () => {
  await pulumi.runtime.setMocks(
    {
      newResource(args) {
        created.push(args);
        const outs: Record<string, unknown> = { ...args.inputs };
        if (args.type.endsWith(":Source")) outs.sourceId = args.inputs.sourceId ?? String(args.inputs.name).toLowerCase();
        if (args.type.endsWith(":Sink")) outs.sinkId = args.inputs.sinkId ?? String(args.inputs.name).toLowerCase();
        if (args.type.endsWith("Config")) outs.configId = args.inputs.configId ?? `${args.name}-id`;
        if (args.type.endsWith(":VariableConfig") && args.inputs.defaultValues) outs.valuesRowId = `${args.name}-values`;
        return { id: `${args.name}-id`, state: outs };
      },
      call: () => ({}),
    },
    "project",
    "stack",
    false,
  );
});

/** The `__program` a resource of this name was registered with, once registered. */
async function factsOf(resource: pulumi.CustomResource, name: string): Promise<Record<string, unknown>> {
  await new Promise<void>((resolve) => resource.urn.apply(() => resolve()));
  return created.find((c) => c.name === name)!.inputs.__program as Record<string, unknown>;
}

const columns = [{ type: "uuid" as const, name: "id" }];

describe("facts about the same program", () => {
  it("gives a sink the first other sink of the program writing its table, with that sink's columns", async () => {
    const src = new keboola.Source("tables-src", { name: "Tables" });
    const first = new keboola.Sink("tables-first", { sourceId: src.sourceId, name: "First", tableId: "in.c-facts.shared", columns: [...columns, { type: "body" as const, name: "body" }] });
    const second = new keboola.Sink("tables-second", { sourceId: src.sourceId, name: "Second", tableId: "in.c-facts.shared", columns });
    const other = new keboola.Sink("tables-other", { sourceId: src.sourceId, name: "Other", tableId: "in.c-facts.other", columns });
    // sourceId: the id the Source will have (derived from its literal name), for checks while it is unknown.
    expect(await factsOf(first, "tables-first")).toEqual({ sourceType: "http", declared: true, sourceId: "tables" });
    expect(await factsOf(second, "tables-second")).toEqual({
      sourceType: "http",
      declared: true,
      sourceId: "tables",
      declaredBefore: ["first"],
      sharedTable: { sink: "tables-first", columns: [...columns, { type: "body", name: "body" }] },
    });
    expect((await factsOf(other, "tables-other")).sharedTable).toBeUndefined();
  });

  it("gives a sink of a Source declared with a literal id that source's type", async () => {
    new keboola.Source("typed-src", { name: "Typed", sourceId: "typed", type: "otlp" });
    const sink = new keboola.Sink("typed-sink", { sourceId: "typed", name: "Typed sink", tableId: "in.c-facts.typed", columns, allowedSignals: ["logs"] });
    expect(await factsOf(sink, "typed-sink")).toEqual({ sourceType: "otlp", declared: true, sourceId: "typed" });
  });

  it("refuses two sinks of one Source output whose names derive one sink id, naming the property and the fix", () => {
    const src = new keboola.Source("dup-src", { name: "Dup Events" });
    new keboola.Sink("dup-a", { sourceId: src.sourceId, name: "Raw Events", tableId: "in.c-facts.a", columns });
    expect(() => new keboola.Sink("dup-b", { sourceId: src.sourceId, name: "raw events", tableId: "in.c-facts.b", columns })).toThrow(
      'keboola:Sink "dup-b": sink id "raw-events" (derived from its name "raw events") of source "dup-events" is already declared by keboola:Sink "dup-a" in this program; two resources would manage one object. Give one of them another sinkId (or name).',
    );
    // The same id through the source's literal id is the same sink too.
    expect(() => new keboola.Sink("dup-c", { sourceId: "dup-events", sinkId: "raw-events", name: "C", tableId: "in.c-facts.c", columns })).toThrow(/sink id "raw-events" \(its sinkId\) of source "dup-events" is already declared by keboola:Sink "dup-a"/);
    // Another source may have a sink of that id.
    const other = new keboola.Source("dup-other", { name: "Dup Other" });
    expect(() => new keboola.Sink("dup-d", { sourceId: other.sourceId, name: "Raw Events", tableId: "in.c-facts.d", columns })).not.toThrow();
  });

  it("tells settings of a sink whether a Sink of the program declares that sink", async () => {
    const src = new keboola.Source("set-src", { name: "Settings Src" });
    const sink = new keboola.Sink("set-sink", { sourceId: src.sourceId, name: "Kept", tableId: "in.c-facts.kept", columns });
    const byOutput = new keboola.SinkSettings("set-by-output", { sourceId: src.sourceId, sinkId: sink.sinkId, syncWait: false });
    const byId = new keboola.SinkSettings("set-by-id", { sourceId: src.sourceId, sinkId: "kept", syncWait: false });
    const missing = new keboola.SinkSettings("set-missing", { sourceId: src.sourceId, sinkId: "nope", syncWait: false });
    const ofSource = new keboola.SourceSettings("set-source", { sourceId: src.sourceId, syncWait: false });
    expect(await factsOf(byOutput, "set-by-output")).toEqual({ declared: true });
    expect(await factsOf(byId, "set-by-id")).toEqual({ declared: true });
    expect(await factsOf(missing, "set-missing")).toEqual({ declared: false });
    expect(await factsOf(ofSource, "set-source")).toEqual({ declared: true });
  });

  it("gives a configuration bound by id alone the declarations of the VariableConfig of the program", async () => {
    const vars = new keboola.VariableConfig("cfg-vars", { name: "Vars", variables: [{ name: "limit", type: "int" }] });
    const config = new keboola.ComponentConfig("cfg-users", { componentId: "keboola.ex-generic-v2", name: "Users", variables: { configId: vars.configId } });
    expect(await factsOf(config, "cfg-users")).toEqual({ plainSecrets: [], boundVariables: { resource: "cfg-vars", declared: [{ name: "limit", type: "int" }] } });
  });

  it("gives a JobRun the ComponentConfig of the program it runs and the VariableConfig that one binds", async () => {
    const vars = new keboola.VariableConfig("job-vars", { name: "Vars", variables: [{ name: "limit", type: "int" }, { name: "endpoint" }], defaultValues: { limit: "5", endpoint: pulumi.secret("users") } });
    const outputDefaults = new keboola.VariableConfig("job-vars-out", { name: "Vars", variables: [{ name: "a" }], defaultValues: pulumi.secret({ a: "1" }) });
    const bound = new keboola.ComponentConfig("job-bound-out", { componentId: "keboola.ex-generic-v2", name: "B", variables: outputDefaults.binding() });
    const outRun = new keboola.JobRun("job-out-run", { componentId: "keboola.ex-generic-v2", configId: bound.configId });
    expect(((await factsOf(outRun, "job-out-run")).configuration as { variables: unknown }).variables).toMatchObject({ defaultValueNames: ["a"] });
    const users = new keboola.ComponentConfig("job-users", { componentId: "keboola.ex-generic-v2", name: "Users", variables: vars.binding() });
    const run = new keboola.JobRun("job-run", { componentId: "keboola.ex-generic-v2", configId: users.configId, variableValuesData: { limit: "3" } });
    expect(await factsOf(run, "job-run")).toEqual({
      declared: true,
      configuration: {
        resource: "job-users",
        isDisabled: false,
        bound: true,
        variablesId: "job-vars-id",
        variables: {
          resource: "job-vars",
          declared: [{ name: "limit", type: "int" }, { name: "endpoint" }],
          defaultValueNames: ["limit", "endpoint"],
          valuesRowId: "job-vars-values",
          defaultRow: "declared",
        },
      },
    });

    const off = new keboola.ComponentConfig("job-off", { componentId: "keboola.ex-generic-v2", configId: "off-here", name: "Off", isDisabled: true });
    const byId = new keboola.JobRun("job-by-id", { componentId: "keboola.ex-generic-v2", configId: "off-here" });
    expect(await factsOf(byId, "job-by-id")).toEqual({ declared: true, configuration: { resource: "job-off", isDisabled: true, bound: false } });
    void off;
    const elsewhere = new keboola.JobRun("job-elsewhere", { componentId: "keboola.ex-generic-v2", configId: "not-here" });
    expect(await factsOf(elsewhere, "job-elsewhere")).toEqual({ declared: false });
  });
});

describe("configurations of the same program", () => {
  it("refuses two configurations of one component and id in one branch, naming both and the fix", () => {
    new keboola.ComponentConfig("cf-dup-a", { componentId: "keboola.ex-generic-v2", configId: "cf-dup", name: "A" });
    expect(() => new keboola.ComponentConfig("cf-dup-b", { componentId: "keboola.ex-generic-v2", configId: "cf-dup", name: "B" })).toThrow(
      'keboola:ComponentConfig "cf-dup-b": configuration "cf-dup" of keboola.ex-generic-v2 is already declared by keboola:ComponentConfig "cf-dup-a" in this program; two resources would manage one object. Give one of them another configId.',
    );
    expect(() => new keboola.ComponentConfig("cf-dup-c", { componentId: "keboola.wr-db-snowflake", configId: "cf-dup", name: "C" })).not.toThrow();
    expect(() => new keboola.ComponentConfig("cf-dup-d", { componentId: "keboola.ex-generic-v2", configId: "cf-dup", name: "D", branchId: "77" })).not.toThrow();
  });

  it("tells a JobRun which values row the configuration it runs names: none, the VariableConfig's default row, or another", async () => {
    const vars = new keboola.VariableConfig("cf-row-vars", { name: "Vars", variables: [{ name: "a" }], defaultValues: { a: "1" } });
    const rowOf = async (name: string, binding: keboola.ComponentConfigArgs["variables"]) => {
      new keboola.ComponentConfig(`${name}-config`, { componentId: "keboola.ex-generic-v2", configId: `${name}-config`, name, variables: binding });
      const run = new keboola.JobRun(`${name}-run`, { componentId: "keboola.ex-generic-v2", configId: `${name}-config` });
      return ((await factsOf(run, `${name}-run`)).configuration as { variables: { defaultRow: string } }).variables.defaultRow;
    };
    expect(await rowOf("cf-row-none", { configId: vars.configId })).toBe("none");
    expect(await rowOf("cf-row-declared", vars.binding())).toBe("declared");
    expect(await rowOf("cf-row-other", { configId: vars.configId, valuesRowId: "12345" })).toBe("other");
  });
});

describe("facts for the service's limits", () => {
  it("gives a source the ids of the sources of its branch declared before it, and a sink those of its source's sinks", async () => {
    const a = new keboola.Source("lim-a", { name: "Lim A" });
    const b = new keboola.Source("lim-b", { name: "Lim B", sourceId: "lim-bee" });
    const other = new keboola.Source("lim-other-branch", { name: "Lim C", branchId: "77" });
    expect((await factsOf(a, "lim-a")).declaredBefore).toBeDefined(); // earlier tests of this file declared sources too
    expect(((await factsOf(b, "lim-b")).declaredBefore as string[]).slice(-1)).toEqual(["lim-a"]);
    expect(await factsOf(other, "lim-other-branch")).toEqual({});
    const s1 = new keboola.Sink("lim-s1", { sourceId: b.sourceId, name: "One", tableId: "in.c-lim.one", columns });
    const s2 = new keboola.Sink("lim-s2", { sourceId: "lim-bee", sinkId: "two", name: "Two", tableId: "in.c-lim.two", columns });
    expect((await factsOf(s1, "lim-s1")).declaredBefore).toBeUndefined();
    expect((await factsOf(s2, "lim-s2")).declaredBefore).toEqual(["one"]);
  });
});

describe("facts about Storage objects of the same program", () => {
  it("gives a Table whether its bucket is a Bucket of this program, and that bucket's id when its stage and name are literal", async () => {
    const bucket = new keboola.Bucket("st-bucket", { name: "st-facts" });
    const byOutput = new keboola.Table("st-by-output", { bucketId: bucket.bucketId, name: "t1", columns: ["id"] });
    const byLiteral = new keboola.Table("st-by-literal", { bucketId: "in.c-st-facts", name: "t2", columns: ["id"] });
    const outBucket = new keboola.Bucket("st-out", { name: "st-out", stage: "out" });
    const inOut = new keboola.Table("st-in-out", { bucketId: "out.c-st-out", name: "t3", columns: ["id"] });
    const elsewhere = new keboola.Table("st-elsewhere", { bucketId: "in.c-not-declared", name: "t4", columns: ["id"] });
    const otherBranch = new keboola.Table("st-other-branch", { bucketId: "in.c-st-facts", branchId: "123", name: "t5", columns: ["id"] });
    const unnamed = new keboola.Bucket("st-unnamed", { name: pulumi.output("st-later") });
    const byUnknown = new keboola.Table("st-by-unknown", { bucketId: unnamed.bucketId, name: "t6", columns: ["id"] });
    expect(await factsOf(byOutput, "st-by-output")).toEqual({ declared: true, bucketId: "in.c-st-facts" });
    expect(await factsOf(byLiteral, "st-by-literal")).toEqual({ declared: true });
    expect(await factsOf(inOut, "st-in-out")).toEqual({ declared: true });
    expect(await factsOf(elsewhere, "st-elsewhere")).toEqual({ declared: false });
    expect(await factsOf(otherBranch, "st-other-branch")).toEqual({ declared: false });
    expect(await factsOf(byUnknown, "st-by-unknown")).toEqual({ declared: true });
    // A stage not known before deployment: the bucket's id is not known either.
    const staged = new keboola.Bucket("st-staged", { name: "st-staged", stage: pulumi.output("out" as const) });
    const byStaged = new keboola.Table("st-by-staged", { bucketId: staged.bucketId, name: "t7", columns: ["id"] });
    expect(await factsOf(byStaged, "st-by-staged")).toEqual({ declared: true });
    void outBucket;
  });

  it("gives a Sink the Table of this program it writes, by the table's output or its literal id, with its declared columns and key", async () => {
    // docs:example Bucket Table
    const bucket = new keboola.Bucket("sk-bucket", { name: "sk-facts" });
    // docs:end Bucket
    const table = new keboola.Table("sk-table", { bucketId: bucket.bucketId, name: "events", columns: ["id", "body"], primaryKey: ["id"] });
    // docs:end Table
    const keyless = new keboola.Table("sk-keyless", { bucketId: "in.c-sk-facts", name: "plain", columns: ["id"] });
    const src = new keboola.Source("sk-src", { name: "sk-src" });
    const byOutput = new keboola.Sink("sk-by-output", { sourceId: src.sourceId, name: "by output", tableId: table.tableId, columns });
    const byLiteral = new keboola.Sink("sk-by-literal", { sourceId: src.sourceId, name: "by literal", tableId: "in.c-sk-facts.plain", columns });
    const other = new keboola.Sink("sk-other", { sourceId: src.sourceId, name: "other", tableId: "in.c-sk-facts.none", columns });
    expect((await factsOf(byOutput, "sk-by-output")).declaredTable).toEqual({ resource: "sk-table", tableId: "in.c-sk-facts.events", columns: ["id", "body"], primaryKey: ["id"] });
    expect((await factsOf(byLiteral, "sk-by-literal")).declaredTable).toEqual({ resource: "sk-keyless", tableId: "in.c-sk-facts.plain", columns: ["id"], primaryKey: [] });
    expect((await factsOf(other, "sk-other")).declaredTable).toBeUndefined();
    void keyless;
  });

  it("refuses two Buckets, two Tables or two Sources of one id in one branch, naming both and the fix; other branches or stages are other objects", () => {
    new keboola.Bucket("dup-bucket-a", { name: "dup-b" });
    expect(() => new keboola.Bucket("dup-bucket-b", { name: "dup-b", stage: "in" })).toThrow(
      'keboola:Bucket "dup-bucket-b": bucket "in.c-dup-b" in branch default is already declared by keboola:Bucket "dup-bucket-a" in this program; two resources would manage one object. Give one of them another name.',
    );
    expect(() => new keboola.Bucket("dup-bucket-out", { name: "dup-b", stage: "out" })).not.toThrow();
    expect(() => new keboola.Bucket("dup-bucket-dev", { name: "dup-b", branchId: "77" })).not.toThrow();
    new keboola.Table("dup-table-a", { bucketId: "in.c-dup-b", name: "t", columns: ["id"] });
    expect(() => new keboola.Table("dup-table-b", { bucketId: "in.c-dup-b", name: "t", columns: ["id"] })).toThrow(
      'keboola:Table "dup-table-b": table "in.c-dup-b.t" in branch default is already declared by keboola:Table "dup-table-a" in this program; two resources would manage one object. Give one of them another name.',
    );
    new keboola.Source("dup-source-a", { name: "Dup Source" });
    expect(() => new keboola.Source("dup-source-b", { name: "x", sourceId: "dup-source" })).toThrow(
      'keboola:Source "dup-source-b": source id "dup-source" in branch default is already declared by keboola:Source "dup-source-a" in this program; two resources would manage one object. Give one of them another sourceId (or name).',
    );
  });
});

describe("branches: a Branch of this program, and a branch the program cannot name", () => {
  // An output of something else than a Branch of this program: its branch is known only once
  // deployed, so two resources in such branches may or may not address one object. The program
  // refuses nothing then (the service's 409 and the owner markers guard it) and shares no facts.
  const elsewhereA = pulumi.output("55");
  const elsewhereB = pulumi.output("66");

  it("refuses nothing and shares no facts between resources in branches it cannot name", async () => {
    expect(() => {
      new keboola.Source("nb-src-a", { name: "nb", sourceId: "nb-src", branchId: elsewhereA });
      new keboola.Source("nb-src-b", { name: "nb", sourceId: "nb-src", branchId: elsewhereB });
      new keboola.Bucket("nb-bucket-a", { name: "nb-bucket", branchId: elsewhereA });
      new keboola.Bucket("nb-bucket-b", { name: "nb-bucket", branchId: elsewhereB });
      new keboola.Table("nb-table-a", { bucketId: "in.c-nb-bucket", name: "t", columns: ["id"], branchId: elsewhereA });
      new keboola.Table("nb-table-b", { bucketId: "in.c-nb-bucket", name: "t", columns: ["id"], branchId: elsewhereB });
      new keboola.Sink("nb-sink-a", { sourceId: "nb-src", sinkId: "s", name: "S", tableId: "in.c-nb-bucket.t", columns, branchId: elsewhereA });
    }).not.toThrow();
    const sinkB = new keboola.Sink("nb-sink-b", { sourceId: "nb-src", sinkId: "s", name: "S", tableId: "in.c-nb-bucket.t", columns, branchId: elsewhereB });
    // Not the Source, Table or sibling sink of the other branch: no type, no table, no sink before it.
    expect(await factsOf(sinkB, "nb-sink-b")).toEqual({ declared: false });
    const tableC = new keboola.Table("nb-table-c", { bucketId: "in.c-nb-bucket", name: "c", columns: ["id"], branchId: elsewhereB });
    expect(await factsOf(tableC, "nb-table-c")).toEqual({ declared: false });
    // Nor is a bucket given as an output of something else than a Bucket of this program.
    const tableD = new keboola.Table("nb-table-d", { bucketId: pulumi.output("in.c-nb-bucket"), name: "d", columns: ["id"] });
    expect(await factsOf(tableD, "nb-table-d")).toEqual({ declared: false });
    const srcC = new keboola.Source("nb-src-c", { name: "nb c", branchId: elsewhereB });
    expect(await factsOf(srcC, "nb-src-c")).toEqual({});
  });

  it("tells a Branch of this program apart by its resource, and a literal branch id whether given as text or number", () => {
    // docs:example Branch
    const dev = new keboola.Branch("nb-dev", { name: "nb dev" });
    // docs:end Branch
    new keboola.Source("nb-dev-a", { name: "x", sourceId: "in-dev", branchId: dev.branchId });
    expect(() => new keboola.Source("nb-dev-b", { name: "y", sourceId: "in-dev", branchId: dev.branchId })).toThrow(
      'keboola:Source "nb-dev-b": source id "in-dev" in branch <Branch nb-dev> is already declared by keboola:Source "nb-dev-a"',
    );
    expect(() => new keboola.Source("nb-dev-default", { name: "z", sourceId: "in-dev" })).not.toThrow();
    new keboola.Bucket("nb-77-text", { name: "nb-77", branchId: "77" });
    expect(() => new keboola.Bucket("nb-77-number", { name: "nb-77", branchId: 77 })).toThrow(/bucket "in.c-nb-77" in branch 77 is already declared by keboola:Bucket "nb-77-text"/);
  });

  it("refuses two Branches of one name (as the service compares names: trimmed), naming both and the fix", () => {
    new keboola.Branch("nb-name-a", { name: "nb feature" });
    expect(() => new keboola.Branch("nb-name-b", { name: " nb feature " })).toThrow(
      'keboola:Branch "nb-name-b": branch name "nb feature" is already declared by keboola:Branch "nb-name-a" in this program; two resources would manage one object. Give one of them another name.',
    );
    expect(() => new keboola.Branch("nb-name-c", { name: "nb other feature" })).not.toThrow();
  });

  it("lets a resource claim its own object again: an inline program that runs twice in one process (preview, then up)", () => {
    expect(() => {
      declareSource("nb-again", { sourceId: "nb-again" });
      declareSource("nb-again", { sourceId: "nb-again" });
      declareBranch("nb-again-branch", { name: "nb again" });
      declareBranch("nb-again-branch", { name: "nb again" });
    }).not.toThrow();
  });

  it("names the source of a refused sink: its literal id, or the Source of this program whose id is not known yet", () => {
    new keboola.Sink("nb-lit-a", { sourceId: "nb-not-declared", sinkId: "dup", name: "A", tableId: "in.c-nb.a", columns });
    expect(() => new keboola.Sink("nb-lit-b", { sourceId: "nb-not-declared", sinkId: "dup", name: "B", tableId: "in.c-nb.b", columns })).toThrow(/sink id "dup" \(its sinkId\) of source "nb-not-declared" is already declared/);
    const anon = new keboola.Source("nb-anon", { name: pulumi.output("later") });
    const anon2 = new keboola.Source("nb-anon-2", { name: pulumi.output("later") });
    new keboola.Sink("nb-anon-a", { sourceId: anon.sourceId, sinkId: "dup", name: "A", tableId: "in.c-nb.c", columns });
    expect(() => new keboola.Sink("nb-anon-b", { sourceId: anon.sourceId, sinkId: "dup", name: "B", tableId: "in.c-nb.d", columns })).toThrow(/sink id "dup" \(its sinkId\) of the source of keboola:Source "nb-anon" is already declared/);
    // Each Source of an unknown id is its own: a sink of that id in another one is another sink.
    expect(() => new keboola.Sink("nb-anon-c", { sourceId: anon2.sourceId, sinkId: "dup", name: "C", tableId: "in.c-nb.e", columns })).not.toThrow();
  });

  it("counts every source of the branch before one whose id is not known yet, and refuses no two Tables whose names are not known yet", async () => {
    const dev = new keboola.Branch("nb-count-dev", { name: "nb count" });
    new keboola.Source("nb-count-a", { name: "a", sourceId: "count-a", branchId: dev.branchId });
    new keboola.Source("nb-count-b", { name: "b", sourceId: "count-b", branchId: dev.branchId });
    const late = new keboola.Source("nb-count-late", { name: pulumi.output("late"), branchId: dev.branchId });
    expect((await factsOf(late, "nb-count-late")).declaredBefore).toEqual(["count-a", "count-b"]);
    const bucket = new keboola.Bucket("nb-late-bucket", { name: "nb-late" });
    expect(() => {
      new keboola.Table("nb-late-1", { bucketId: bucket.bucketId, name: pulumi.output("one"), columns: ["id"] });
      new keboola.Table("nb-late-2", { bucketId: bucket.bucketId, name: pulumi.output("two"), columns: ["id"] });
    }).not.toThrow();
  });

  it("gives a Sink writing a Table of this program whose name is not known yet that table without an id", async () => {
    const bucket = new keboola.Bucket("nb-tid-bucket", { name: "nb-tid" });
    const table = new keboola.Table("nb-tid-table", { bucketId: bucket.bucketId, name: pulumi.output("later"), columns: ["id"] });
    const src = new keboola.Source("nb-tid-src", { name: "nb tid" });
    const sink = new keboola.Sink("nb-tid-sink", { sourceId: src.sourceId, name: "S", tableId: table.tableId, columns });
    const declared = (await factsOf(sink, "nb-tid-sink")).declaredTable as Record<string, unknown>;
    expect(declared).toEqual({ resource: "nb-tid-table", columns: ["id"], primaryKey: [] });
    expect("tableId" in declared).toBe(false);
  });
});
