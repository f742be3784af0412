import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { source, sink, sourceSettings, sinkSettings, componentConfig, variableConfig, jobRun } from "./hosted";
import type { Props } from "../../provider/lifecycle/types";
import type { HostedHandler as ResourceHandler } from "./hosted";
import { ensureTable } from "../../emulator/storage/tables";
import { ownerUrn, startHarness, type Harness } from "./harness";
import { UNKNOWN, failuresForEngine } from "../../provider/validation/check";
import { MASTER_TOKEN } from "./harness";
import { startPlugin, urnOf, type Plugin } from "./plugin-client";
import { ownerOfUrn } from "../../provider/lifecycle/ownership";

// Preview refuses what the service would refuse: more than a hundred bad inputs across the seven
// resources, each through `check` against the emulator holding a small project (another owner's
// source, sink and configuration, tables with columns and a primary key, full branches), each
// refused at its property path with a fix, none with zod's default wording, and none of them
// writing anything.

let h: Harness;
const FOREIGN = "urn:pulumi:prod::other::pulumi-nodejs:dynamic/keboola:Source::theirs";

beforeAll(async () => {
  h = await startHarness({ taskDurationMs: 0 });
  const stream = await h.ctx.client().stream();
  const storage = h.ctx.client().storage;
  const mkSource = async (branch: string, sourceId: string, type = "http", description = "") =>
    stream.runTask(await stream.createSource(branch, { sourceId, name: sourceId, type, description }), sourceId);
  const mkSink = async (sourceId: string, sinkId: string, description = "") =>
    stream.runTask(
      await stream.createSink("default", sourceId, { sinkId, type: "table", name: sinkId, description, table: { type: "keboola", tableId: `in.c-fix.${sinkId}`, mapping: { columns: [{ type: "uuid", name: "id" }] } } }),
      sinkId,
    );
  await mkSource("default", "web");
  await mkSource("default", "otel", "otlp");
  await mkSource("default", "taken", "http", `theirs\n\nmanaged by keboola-pulumi: ${FOREIGN}`);
  await mkSink("web", "claimed", `\n\nmanaged by keboola-pulumi: ${FOREIGN}`);
  await mkSource("default", "full");
  // Side by side: one after another, these 196 creates were 15 of the file's 15.4 s (the tests run
  // in 0.3 s), paid again by every mutation-test run that reaches a refusal.
  await Promise.all(Array.from({ length: 100 }, (_, i) => mkSink("full", `s${i}`)));
  // The branch then holds the service's 100 sources.
  await Promise.all(Array.from({ length: 96 }, (_, i) => mkSource("default", `src-${i}`)));
  ensureTable(h.emu.context, 101, "in.c-fix.cols", ["a", "b"]);
  ensureTable(h.emu.context, 101, "in.c-fix.keyed", ["id", "value"], ["id"]);
  await storage.createConfig("default", "keboola.ex-generic-v2", { configurationId: "theirs", name: "Theirs", changeDescription: `x\n\nmanaged by keboola-pulumi: ${FOREIGN}` });
  await storage.createConfig("default", "keboola.ex-generic-v2", { configurationId: "off", name: "Off", isDisabled: true });
  await storage.createConfig("default", "keboola.ex-generic-v2", { configurationId: "plain", name: "Plain" });
  await storage.createConfig("default", "keboola.variables", { configurationId: "vars", name: "Vars", configuration: { variables: [{ name: "limit", type: "int" }] } });
  await storage.createRow("default", "keboola.variables", "vars", { rowId: "values", name: "Default values", configuration: { values: [{ name: "limit", value: "5" }] } });
  await storage.createConfig("default", "keboola.ex-generic-v2", { configurationId: "bound", name: "Bound", configuration: { variables_id: "vars" } });
  await storage.createConfig("default", "keboola.variables", { configurationId: "vars-theirs", name: "Theirs", changeDescription: `managed by keboola-pulumi: ${FOREIGN}` });
  await fetch(`${h.emu.url}/_emulator/state`); // settle the last tasks
  h.emu.clearRequests();
}, 60_000);

afterAll(async () => {
  await h?.close();
});

const long = (n: number) => "x".repeat(n);
const col = { type: "uuid", name: "id" };
const sinkArgs = (over: Props = {}): Props => ({ sourceId: "web", name: "Out", tableId: "in.c-new.out", columns: [col], ...over });
const extractor = (over: Props = {}): Props => ({ componentId: "keboola.ex-generic-v2", name: "Users", ...over });
const vars = (over: Props = {}): Props => ({ name: "Vars", variables: [{ name: "limit", type: "int" }], ...over });
const run = (over: Props = {}): Props => ({ componentId: "keboola.ex-generic-v2", configId: "plain", ...over });

interface Case {
  what: string;
  handler: ResourceHandler;
  inputs: Props;
  olds?: Props;
  path: string;
  fix: RegExp;
}

const cases: Case[] = [
  // Source
  { what: "Source without name", handler: source, inputs: {}, path: "name", fix: /is required: set it/ },
  { what: "Source empty name", handler: source, inputs: { name: "" }, path: "name", fix: /must not be empty/ },
  { what: "Source name over 40", handler: source, inputs: { name: long(41) }, path: "name", fix: /shorten it/ },
  { what: "Source name of symbols", handler: source, inputs: { name: "!!!" }, path: "name", fix: /set sourceId/ },
  { what: "Source name of non-Latin letters", handler: source, inputs: { name: "日本語" }, path: "name", fix: /set sourceId/ },
  { what: "Source id not normalized", handler: source, inputs: { name: "A", sourceId: "Not Normal" }, path: "sourceId", fix: /write it normalized/ },
  { what: "Source id over 48", handler: source, inputs: { name: "A", sourceId: long(49) }, path: "sourceId", fix: /shorten it/ },
  { what: "Source empty id", handler: source, inputs: { name: "A", sourceId: "" }, path: "sourceId", fix: /omit it/ },
  { what: "Source unknown type", handler: source, inputs: { name: "A", type: "kafka" }, path: "type", fix: /"http" or "otlp"/ },
  { what: "Source type not a string", handler: source, inputs: { name: "A", type: 5 }, path: "type", fix: /"http" or "otlp"/ },
  { what: "Source description over 4096", handler: source, inputs: { name: "A", description: long(5000) }, path: "description", fix: /shorten it/ },
  { what: "Source description pushed over by the marker", handler: source, inputs: { name: "A", description: long(4090) }, path: "description", fix: /shorten it to at most \d+/ },
  { what: "Source description a number", handler: source, inputs: { name: "A", description: 5 }, path: "description", fix: /write text in quotes/ },
  { what: "Source misspelt name key", handler: source, inputs: { nmae: "A", name: "A" }, path: "nmae", fix: /did you mean "name"/ },
  { what: "Source misspelt description", handler: source, inputs: { name: "A", descripton: "x" }, path: "descripton", fix: /did you mean "description"/ },
  { what: "Source misspelt key only", handler: source, inputs: { nmae: "A" }, path: "nmae", fix: /did you mean "name"/ },
  { what: "Source branch name", handler: source, inputs: { name: "A", branchId: "main" }, path: "branchId", fix: /"default" or a numeric/ },
  { what: "Source missing branch", handler: source, inputs: { name: "A", branchId: 999 }, path: "branchId", fix: /use "default" or one of these ids/ },
  { what: "Source id of another owner", handler: source, inputs: { name: "A", sourceId: "taken" }, path: "sourceId", fix: /belongs to stack "prod".*adoptExisting: true/ },
  { what: "Source derived id of another owner", handler: source, inputs: { name: "Taken" }, path: "name", fix: /belongs to.*this resource is stack "test".*Choose another sourceId/ },
  { what: "Source adoptExisting not boolean", handler: source, inputs: { name: "A", adoptExisting: "yes" }, path: "adoptExisting", fix: /true or false/ },
  { what: "Source 101st in a branch", handler: source, inputs: { name: "One more" }, path: "name", fix: /limit is 100: delete one first, or use another branch/ },

  // Sink
  { what: "Sink without sourceId", handler: sink, inputs: { name: "Out", tableId: "in.c-a.b", columns: [col] }, path: "sourceId", fix: /is required: set it/ },
  { what: "Sink of a missing source", handler: sink, inputs: sinkArgs({ sourceId: "nope" }), path: "sourceId", fix: /does not exist.*pass the sourceId of a Source/ },
  { what: "Sink given the source's name", handler: sink, inputs: sinkArgs({ sourceId: "App Events" }), path: "sourceId", fix: /does not exist.*not the source's name/ },
  { what: "Sink table id without stage", handler: sink, inputs: sinkArgs({ tableId: "bad" }), path: "tableId", fix: /like "in.c-events.raw"/ },
  { what: "Sink table id without c- bucket", handler: sink, inputs: sinkArgs({ tableId: "in.bucket.t" }), path: "tableId", fix: /like "in.c-events.raw"/ },
  { what: "Sink no columns", handler: sink, inputs: sinkArgs({ columns: [] }), path: "columns", fix: /at least|add/ },
  { what: "Sink 101 columns", handler: sink, inputs: sinkArgs({ columns: Array.from({ length: 101 }, (_, i) => ({ type: "uuid", name: `c${i}` })) }), path: "columns", fix: /at most 100|remove/ },
  { what: "Sink duplicate column names", handler: sink, inputs: sinkArgs({ columns: [col, col] }), path: "columns[1].name", fix: /unique|rename|duplicate/i },
  { what: "Sink column type typo", handler: sink, inputs: sinkArgs({ columns: [{ type: "uuidd", name: "id" }] }), path: "columns[0].type", fix: /uuid/ },
  { what: "Sink path column without path", handler: sink, inputs: sinkArgs({ columns: [{ type: "path", name: "p" }] }), path: "columns[0].path", fix: /required|set it|path/ },
  { what: "Sink broken template", handler: sink, inputs: sinkArgs({ columns: [{ type: "template", name: "t", template: { content: "Body(" } }] }), path: "columns[0].template.content", fix: /\d+:\d+/ },
  { what: "Sink template unknown global", handler: sink, inputs: sinkArgs({ columns: [{ type: "template", name: "t", template: { content: "Bodyy('a')" } }] }), path: "columns[0].template.content", fix: /Unknown variable|Bodyy/ },
  // keboola/keboola-as-code internal/pkg/service/stream/mapping/jsonnet/jsonnet.go: the globals' arity and types.
  { what: "Sink template Ip with an argument", handler: sink, inputs: sinkArgs({ columns: [{ type: "template", name: "t", template: { content: "Ip(1)" } }] }), path: "columns[0].template.content", fix: /expected 0 positional argument/ },
  { what: "Sink template Body with three arguments", handler: sink, inputs: sinkArgs({ columns: [{ type: "template", name: "t", template: { content: "Body('a', 1, 2)" } }] }), path: "columns[0].template.content", fix: /expected 2 positional argument/ },
  { what: "Sink template Header with a number", handler: sink, inputs: sinkArgs({ columns: [{ type: "template", name: "t", template: { content: "Header(1)" } }] }), path: "columns[0].template.content", fix: /must be a string/ },
  { what: "Sink empty template", handler: sink, inputs: sinkArgs({ columns: [{ type: "template", name: "t", template: { content: "" } }] }), path: "columns[0].template.content", fix: /empty|at least/ },
  { what: "Sink column without name", handler: sink, inputs: sinkArgs({ columns: [{ type: "uuid" }] }), path: "columns[0].name", fix: /required|name/ },
  { what: "Sink column key typo", handler: sink, inputs: sinkArgs({ columns: [{ type: "path", name: "p", path: "a", rawstring: true }] }), path: "columns[0].rawstring", fix: /did you mean "rawString"/ },
  { what: "Sink signal typo", handler: sink, inputs: sinkArgs({ sourceId: "otel", allowedSignals: ["log"] }), path: "allowedSignals[0]", fix: /did you mean "logs"/ },
  { what: "Sink signals on an existing HTTP source", handler: sink, inputs: sinkArgs({ allowedSignals: ["logs"] }), path: "allowedSignals", fix: /HTTP source.*remove allowedSignals/ },
  { what: "Sink signals on an HTTP Source of this program", handler: sink, inputs: sinkArgs({ sourceId: "planned", allowedSignals: ["traces"], __program: { sourceType: "http", declared: true } }), path: "allowedSignals", fix: /HTTP source/ },
  { what: "Sink columns unlike the table's", handler: sink, inputs: sinkArgs({ tableId: "in.c-fix.cols", columns: [{ type: "uuid", name: "a" }] }), path: "columns", fix: /does not match the existing table.*Fix:/s },
  { what: "Sink without the table's primary key", handler: sink, inputs: sinkArgs({ tableId: "in.c-fix.keyed", columns: [{ type: "uuid", name: "id" }, { type: "body", name: "value" }] }), path: "columns", fix: /primary key \[\] does not match the primary key \[id\].*set primaryKey: true on exactly "id"/ },
  { what: "Sink with a primary key the table lacks", handler: sink, inputs: sinkArgs({ tableId: "in.c-fix.cols", columns: [{ type: "uuid", name: "a", primaryKey: true }, { type: "body", name: "b" }] }), path: "columns", fix: /remove primaryKey/ },
  { what: "Sink id not normalized", handler: sink, inputs: sinkArgs({ sinkId: "Bad Id" }), path: "sinkId", fix: /write it normalized/ },
  { what: "Sink name of symbols", handler: sink, inputs: sinkArgs({ name: "###" }), path: "name", fix: /set sinkId/ },
  { what: "Sink id of another owner", handler: sink, inputs: sinkArgs({ sinkId: "claimed" }), path: "sinkId", fix: /belongs to stack "prod".*adoptExisting/ },
  { what: "Sink 101st of a source", handler: sink, inputs: sinkArgs({ sourceId: "full" }), path: "name", fix: /limit is 100.*another source/ },
  { what: "Sink enabled not boolean", handler: sink, inputs: sinkArgs({ enabled: "no" }), path: "enabled", fix: /true or false/ },
  { what: "Sink rotateToken number", handler: sink, inputs: sinkArgs({ rotateToken: 5 }), path: "rotateToken", fix: /text in quotes/ },
  { what: "Sink tableId key typo", handler: sink, inputs: { ...sinkArgs(), tableID: "in.c-a.b" }, path: "tableID", fix: /did you mean "tableId"/ },
  { what: "Sink missing branch", handler: sink, inputs: sinkArgs({ branchId: "999" }), path: "branchId", fix: /use "default" or one of these ids/ },
  { what: "Sink description over 4096", handler: sink, inputs: sinkArgs({ description: long(4097) }), path: "description", fix: /shorten it/ },
  { what: "Sink name over 40", handler: sink, inputs: sinkArgs({ name: long(41) }), path: "name", fix: /shorten it/ },
  { what: "Sink columns not a list", handler: sink, inputs: sinkArgs({ columns: "id" }), path: "columns", fix: /list|array/ },
  { what: "Sink template language", handler: sink, inputs: sinkArgs({ columns: [{ type: "template", name: "t", template: { language: "js", content: "1" } }] }), path: "columns[0].template.language", fix: /jsonnet/ },

  // SourceSettings
  { what: "SourceSettings without sourceId", handler: sourceSettings, inputs: { targetImportTrigger: { count: 10 } }, path: "sourceId", fix: /required|set it/ },
  { what: "SourceSettings interval below range", handler: sourceSettings, inputs: { sourceId: "web", stagingUploadTrigger: { interval: "500ms" } }, path: "stagingUploadTrigger.interval", fix: /use a value in/ },
  { what: "SourceSettings interval above range", handler: sourceSettings, inputs: { sourceId: "web", stagingUploadTrigger: { interval: "1h" } }, path: "stagingUploadTrigger.interval", fix: /use a value in/ },
  { what: "SourceSettings import interval below range", handler: sourceSettings, inputs: { sourceId: "web", targetImportTrigger: { interval: "10s" } }, path: "targetImportTrigger.interval", fix: /use a value in/ },
  { what: "SourceSettings import interval above range", handler: sourceSettings, inputs: { sourceId: "web", targetImportTrigger: { interval: "48h" } }, path: "targetImportTrigger.interval", fix: /use a value in/ },
  { what: "SourceSettings interval in days", handler: sourceSettings, inputs: { sourceId: "web", targetImportTrigger: { interval: "1d" } }, path: "targetImportTrigger.interval", fix: /write (it|a duration|a size) like|e\.g\./ },
  { what: "SourceSettings interval without unit", handler: sourceSettings, inputs: { sourceId: "web", targetImportTrigger: { interval: "60" } }, path: "targetImportTrigger.interval", fix: /write (it|a duration|a size) like|e\.g\./ },
  { what: "SourceSettings interval with a space", handler: sourceSettings, inputs: { sourceId: "web", targetImportTrigger: { interval: "5 m" } }, path: "targetImportTrigger.interval", fix: /write (it|a duration|a size) like|e\.g\./ },
  { what: "SourceSettings interval surrounded by spaces", handler: sourceSettings, inputs: { sourceId: "web", targetImportTrigger: { interval: " 5m " } }, path: "targetImportTrigger.interval", fix: /write (it|a duration|a size) like|e\.g\./ },
  { what: "SourceSettings empty interval", handler: sourceSettings, inputs: { sourceId: "web", targetImportTrigger: { interval: "" } }, path: "targetImportTrigger.interval", fix: /write (it|a duration|a size) like|e\.g\./ },
  { what: "SourceSettings size above range", handler: sourceSettings, inputs: { sourceId: "web", stagingUploadTrigger: { size: "1GB" } }, path: "stagingUploadTrigger.size", fix: /use a value in/ },
  { what: "SourceSettings size below range", handler: sourceSettings, inputs: { sourceId: "web", stagingUploadTrigger: { size: "10B" } }, path: "stagingUploadTrigger.size", fix: /use a value in/ },
  { what: "SourceSettings size without a number", handler: sourceSettings, inputs: { sourceId: "web", targetImportTrigger: { size: "fiveMB" } }, path: "targetImportTrigger.size", fix: /write (it|a size) like|e\.g\./ },
  { what: "SourceSettings count zero", handler: sourceSettings, inputs: { sourceId: "web", targetImportTrigger: { count: 0 } }, path: "targetImportTrigger.count", fix: /at least 1/ },
  { what: "SourceSettings count too big", handler: sourceSettings, inputs: { sourceId: "web", targetImportTrigger: { count: 20_000_000 } }, path: "targetImportTrigger.count", fix: /at most/ },
  { what: "SourceSettings fractional count", handler: sourceSettings, inputs: { sourceId: "web", targetImportTrigger: { count: 1.5 } }, path: "targetImportTrigger.count", fix: /whole number/ },
  { what: "SourceSettings count as text", handler: sourceSettings, inputs: { sourceId: "web", targetImportTrigger: { count: "10" } }, path: "targetImportTrigger.count", fix: /number/ },
  { what: "SourceSettings syncWait text", handler: sourceSettings, inputs: { sourceId: "web", syncWait: "yes" }, path: "syncWait", fix: /true or false/ },
  { what: "SourceSettings interval key typo", handler: sourceSettings, inputs: { sourceId: "web", targetImportTrigger: { intervall: "5m" } }, path: "targetImportTrigger.intervall", fix: /did you mean "interval"/ },
  { what: "SourceSettings section typo", handler: sourceSettings, inputs: { sourceId: "web", stagingUploadTriger: { count: 5 } }, path: "stagingUploadTriger", fix: /did you mean "stagingUploadTrigger"/ },
  { what: "SourceSettings of a missing source", handler: sourceSettings, inputs: { sourceId: "Web Events", syncWait: false }, path: "sourceId", fix: /does not exist.*not its name/ },
  { what: "SinkSettings of a missing sink", handler: sinkSettings, inputs: { sourceId: "web", sinkId: "nope", syncWait: false }, path: "sinkId", fix: /sink "nope" of source "web" does not exist/ },
  { what: "SourceSettings sinkId given", handler: sourceSettings, inputs: { sourceId: "web", sinkId: "x" }, path: "sinkId", fix: /Remove it|correct its name|SinkSettings/ },

  // SinkSettings
  { what: "SinkSettings without sinkId", handler: sinkSettings, inputs: { sourceId: "web", syncWait: true }, path: "sinkId", fix: /required|set it/ },
  { what: "SinkSettings without sourceId", handler: sinkSettings, inputs: { sinkId: "claimed", syncWait: true }, path: "sourceId", fix: /required|set it/ },
  { what: "SinkSettings interval out of range", handler: sinkSettings, inputs: { sourceId: "web", sinkId: "claimed", stagingUploadTrigger: { interval: "31m" } }, path: "stagingUploadTrigger.interval", fix: /use a value in/ },
  { what: "SinkSettings size out of range", handler: sinkSettings, inputs: { sourceId: "web", sinkId: "claimed", targetImportTrigger: { size: "600MB" } }, path: "targetImportTrigger.size", fix: /use a value in/ },
  { what: "SinkSettings negative count", handler: sinkSettings, inputs: { sourceId: "web", sinkId: "claimed", stagingUploadTrigger: { count: -1 } }, path: "stagingUploadTrigger.count", fix: /at least 1/ },
  { what: "SinkSettings size as number", handler: sinkSettings, inputs: { sourceId: "web", sinkId: "claimed", targetImportTrigger: { size: 5 } }, path: "targetImportTrigger.size", fix: /text in quotes|5MB/ },
  { what: "SinkSettings count key typo", handler: sinkSettings, inputs: { sourceId: "web", sinkId: "claimed", targetImportTrigger: { cnt: 5 } }, path: "targetImportTrigger.cnt", fix: /Known here: interval, size, count/ },
  { what: "SinkSettings syncWait typo", handler: sinkSettings, inputs: { sourceId: "web", sinkId: "claimed", syncwait: false }, path: "syncwait", fix: /did you mean "syncWait"/ },

  // VariableConfig
  { what: "VariableConfig without name", handler: variableConfig, inputs: { variables: [] }, path: "name", fix: /required/ },
  { what: "VariableConfig variables not a list", handler: variableConfig, inputs: vars({ variables: { limit: "int" } }), path: "variables", fix: /array of \{name, type\}/ },
  { what: "VariableConfig dotted variable name", handler: variableConfig, inputs: vars({ variables: [{ name: "a.b" }] }), path: "variables[0].name", fix: /letters, digits, _ and -/ },
  { what: "VariableConfig duplicate variable", handler: variableConfig, inputs: vars({ variables: [{ name: "a" }, { name: "a" }] }), path: "variables[1].name", fix: /declare each variable once/ },
  { what: "VariableConfig unknown type", handler: variableConfig, inputs: vars({ variables: [{ name: "a", type: "float" }] }), path: "variables[0].type", fix: /"string" or "int"/ },
  { what: "VariableConfig value of an undeclared variable", handler: variableConfig, inputs: vars({ defaultValues: { limt: "5" } }), path: "defaultValues.limt", fix: /declare it/ },
  { what: "VariableConfig non-integer int value", handler: variableConfig, inputs: vars({ defaultValues: { limit: "ten" } }), path: "defaultValues.limit", fix: /whole number/ },
  { what: "VariableConfig configId with a space", handler: variableConfig, inputs: vars({ configId: "a b" }), path: "configId", fix: /letters|digits/ },
  { what: "VariableConfig defaults key", handler: variableConfig, inputs: vars({ defaults: { limit: "5" } }), path: "defaults", fix: /did you mean "defaultValues"/ },
  { what: "VariableConfig missing branch", handler: variableConfig, inputs: vars({ branchId: 4242 }), path: "branchId", fix: /use "default" or one of these ids/ },
  { what: "VariableConfig id of another owner", handler: variableConfig, inputs: vars({ configId: "vars-theirs" }), path: "configId", fix: /belongs to stack "prod".*adoptExisting/ },
  { what: "VariableConfig adoptExisting without configId", handler: variableConfig, inputs: vars({ adoptExisting: true }), path: "adoptExisting", fix: /needs configId/ },
  { what: "VariableConfig variable name too long", handler: variableConfig, inputs: vars({ variables: [{ name: long(65) }] }), path: "variables[0].name", fix: /at most 64/ },

  // ComponentConfig
  { what: "ComponentConfig without componentId", handler: componentConfig, inputs: { name: "X" }, path: "componentId", fix: /required: the component id/ },
  { what: "ComponentConfig malformed componentId", handler: componentConfig, inputs: extractor({ componentId: "Generic Extractor" }), path: "componentId", fix: /component id such as/ },
  { what: "ComponentConfig component not in the stack", handler: componentConfig, inputs: extractor({ componentId: "keboola.ex-generic" }), path: "componentId", fix: /did you mean "keboola.ex-generic-v2"/ },
  { what: "ComponentConfig of variables", handler: componentConfig, inputs: extractor({ componentId: "keboola.variables" }), path: "componentId", fix: /use VariableConfig/ },
  { what: "ComponentConfig configId with a space", handler: componentConfig, inputs: extractor({ configId: "a b" }), path: "configId", fix: /letters, digits/ },
  { what: "ComponentConfig id of another owner", handler: componentConfig, inputs: extractor({ configId: "theirs" }), path: "configId", fix: /belongs to stack "prod".*adoptExisting/ },
  { what: "ComponentConfig row without name", handler: componentConfig, inputs: extractor({ rows: [{}] }), path: "rows[0].name", fix: /give it a name or a rowId/ },
  { what: "ComponentConfig row with an empty name and no rowId", handler: componentConfig, inputs: extractor({ rows: [{ name: "" }] }), path: "rows[0].name", fix: /a row without rowId is matched by its name/ },
  { what: "ComponentConfig duplicate rowId", handler: componentConfig, inputs: extractor({ rows: [{ name: "a", rowId: "r" }, { name: "b", rowId: "r" }] }), path: "rows[1].rowId", fix: /must be unique/ },
  { what: "ComponentConfig configuration a list", handler: componentConfig, inputs: extractor({ configuration: [1] }), path: "configuration", fix: /object/ },
  { what: "ComponentConfig undeclared placeholder", handler: componentConfig, inputs: extractor({ variables: { configId: "vars", declared: [{ name: "limit", type: "int" }] }, configuration: { parameters: { api: { baseUrl: "https://x/" }, config: { jobs: [{ endpoint: "{{endpoint}}" }] } } } }), path: "configuration.parameters.config.jobs[0].endpoint", fix: /declare/ },
  { what: "ComponentConfig rows key typo", handler: componentConfig, inputs: extractor({ row: [] }), path: "row", fix: /did you mean "rows"/ },
  { what: "ComponentConfig isDisabled text", handler: componentConfig, inputs: extractor({ isDisabled: "no" }), path: "isDisabled", fix: /true or false/ },
  { what: "ComponentConfig missing branch", handler: componentConfig, inputs: extractor({ branchId: "77" }), path: "branchId", fix: /use "default" or one of these ids/ },
  { what: "ComponentConfig empty variables configId", handler: componentConfig, inputs: extractor({ variables: { configId: "" } }), path: "variables.configId", fix: /must not be empty/ },
  { what: "ComponentConfig variables in configuration too", handler: componentConfig, inputs: extractor({ variables: { configId: "vars" }, configuration: { variables_id: "vars" } }), path: "configuration.variables_id", fix: /remove variables_id/ },
  { what: "ComponentConfig adoptExisting without configId", handler: componentConfig, inputs: extractor({ adoptExisting: true }), path: "adoptExisting", fix: /needs configId/ },

  // JobRun
  { what: "JobRun without componentId", handler: jobRun, inputs: { configId: "plain" }, path: "componentId", fix: /required: the component id/ },
  { what: "JobRun without configId", handler: jobRun, inputs: { componentId: "keboola.ex-generic-v2" }, path: "configId", fix: /required: the configuration to run/ },
  { what: "JobRun of a missing configuration", handler: jobRun, inputs: run({ configId: "nope" }), path: "configId", fix: /does not exist.*pass the configId of a ComponentConfig/ },
  { what: "JobRun of a disabled configuration", handler: jobRun, inputs: run({ configId: "off" }), path: "configId", fix: /is disabled.*isDisabled: false/ },
  { what: "JobRun values of an undeclared variable", handler: jobRun, inputs: run({ configId: "bound", variableValuesData: { limt: "5" } }), path: "variableValuesData.limt", fix: /declare it/ },
  { what: "JobRun non-integer value", handler: jobRun, inputs: run({ configId: "bound", variableValuesData: { limit: "many" } }), path: "variableValuesData.limit", fix: /whole number/ },
  { what: "JobRun values row that does not exist", handler: jobRun, inputs: run({ configId: "bound", variableValuesId: "nope" }), path: "variableValuesId", fix: /not a values row.*use one of them/ },
  { what: "JobRun values for an unbound configuration", handler: jobRun, inputs: run({ variableValuesData: { limit: "5" } }), path: "variableValuesData", fix: /no variables bound.*bind a VariableConfig/ },
  { what: "JobRun both kinds of values", handler: jobRun, inputs: run({ configId: "bound", variableValuesData: { limit: "5" }, variableValuesId: "values" }), path: "variableValuesId", fix: /set either variableValuesData or variableValuesId/ },
  { what: "JobRun negative timeout", handler: jobRun, inputs: run({ timeoutSeconds: -1 }), path: "timeoutSeconds", fix: /positive number of seconds/ },
  { what: "JobRun triggers key typo", handler: jobRun, inputs: run({ trigger: 1 }), path: "trigger", fix: /did you mean "triggers"/ },
  { what: "JobRun missing branch", handler: jobRun, inputs: run({ branchId: "55", configId: "nope" }), path: "configId", fix: /does not exist/ },

  // Objects declared in the same program and not created yet: the resource classes pass what the
  // program declares as the hidden input __program (test/mocks/program-facts.test.ts shows a
  // program sending these facts); values the program computes are unknown at preview.
  {
    what: "Sink writing a new table another Sink of the program creates with other columns",
    handler: sink,
    inputs: sinkArgs({ sourceId: "planned", tableId: "in.c-new.shared", __program: { sourceType: "http", declared: true, sharedTable: { sink: "first", columns: [col, { type: "body", name: "body" }] } } }),
    path: "columns",
    fix: /table "in\.c-new\.shared" does not exist yet and Sink "first" of this program writes it too.*columns of Sink "first": \[id, body\].*columns of this sink: \[id\].*Fix: give both sinks the same column names and primaryKey/s,
  },
  {
    what: "Sink writing a new table with another primary key than another Sink of the program",
    handler: sink,
    inputs: sinkArgs({ tableId: "in.c-new.keyed", columns: [{ ...col, primaryKey: true }], __program: { declared: true, sharedTable: { sink: "first", columns: [col] } } }),
    path: "columns",
    fix: /\[id\] \(primary key \[id\]\).*in the same order, or point tableId at another table/s,
  },
  { what: "SinkSettings of a sink neither existing nor declared in the program", handler: sinkSettings, inputs: { sourceId: "planned", sinkId: "nope", syncWait: false, __program: { declared: false } }, path: "sinkId", fix: /sink "nope" of source "planned" does not exist in branch default, and no Sink of this program declares it: pass the sinkId of a Sink/ },
  { what: "SinkSettings of a missing sink of an existing Source of the program", handler: sinkSettings, inputs: { sourceId: "web", sinkId: "nope", syncWait: false, __program: { declared: false } }, path: "sinkId", fix: /no Sink of this program declares it/ },
  {
    what: "ComponentConfig bound by configId alone to a VariableConfig of the program, with an undeclared placeholder",
    handler: componentConfig,
    inputs: extractor({
      variables: { configId: UNKNOWN },
      configuration: { parameters: { api: { baseUrl: "https://x/" }, config: { jobs: [{ endpoint: "{{endpoint}}", params: { limit: "{{limit}}" } }] } } },
      __program: { boundVariables: { resource: "vars", declared: [{ name: "limit", type: "int" }] } },
    }),
    path: "configuration.parameters.config.jobs[0].endpoint",
    fix: /\{\{endpoint\}\} refers to variable "endpoint", which the bound variables do not declare \(declared: limit\): declare it/,
  },
  { what: "JobRun values missing a variable of a new configuration", handler: jobRun, inputs: run({ configId: UNKNOWN, variableValuesData: { limit: "5" }, __program: planned() }), path: "variableValuesData", fix: /has no value for variable "endpoint", which VariableConfig "vars" of this program declares, so the job would fail \(No value provided for variable "endpoint"\.\): add them to variableValuesData/ },
  { what: "JobRun value of a variable a new VariableConfig does not declare", handler: jobRun, inputs: run({ configId: UNKNOWN, variableValuesData: { limit: "5", endpoint: "x", limt: "3" }, __program: planned() }), path: "variableValuesData.limt", fix: /"limt" is not a declared variable \(declared: limit, endpoint\): declare it/ },
  { what: "JobRun non-integer value of a new VariableConfig's int", handler: jobRun, inputs: run({ configId: UNKNOWN, variableValuesData: { limit: "ten", endpoint: "x" }, __program: planned() }), path: "variableValuesData.limit", fix: /whole number/ },
  { what: "JobRun values row of a VariableConfig not created yet", handler: jobRun, inputs: run({ configId: UNKNOWN, variableValuesId: "nope", __program: planned() }), path: "variableValuesId", fix: /"nope" is not a values row of VariableConfig "vars" of this program \(its rows: none but the default values row it creates: pass vars\.valuesRowId\): use one of them, or pass variableValuesData/ },
  { what: "JobRun values row of a VariableConfig with a configId, not created yet", handler: jobRun, inputs: run({ configId: "users-new", variableValuesId: "values", __program: planned({ variablesId: "vars-new" }) }), path: "variableValuesId", fix: /"values" is not a values row of VariableConfig "vars" of this program/ },
  { what: "JobRun values row of an existing VariableConfig of the program missing a variable", handler: jobRun, inputs: run({ configId: UNKNOWN, variableValuesId: "values", __program: planned({ variablesId: "vars" }) }), path: "variableValuesId", fix: /values row "values" of VariableConfig "vars" of this program has no value for variable "endpoint", which it declares.*add them to that row, or pass variableValuesData/ },
  { what: "JobRun of a disabled configuration of the program", handler: jobRun, inputs: run({ configId: UNKNOWN, __program: planned({ isDisabled: true }) }), path: "configId", fix: /ComponentConfig "users" of this program is disabled, so its job would fail: set isDisabled: false on ComponentConfig "users", or remove this JobRun/ },
  { what: "JobRun values for an unbound configuration of the program", handler: jobRun, inputs: run({ configId: "users-new", variableValuesData: { limit: "5" }, __program: { declared: true, configuration: { resource: "users", isDisabled: false, bound: false } } }), path: "variableValuesData", fix: /ComponentConfig "users" of this program has no variables bound.*bind a VariableConfig to ComponentConfig "users"/ },
  { what: "JobRun without values whose default values miss a variable", handler: jobRun, inputs: run({ configId: UNKNOWN, __program: planned({ defaultValueNames: ["limit"] }) }), path: "variableValuesData", fix: /is not set, and the default values of VariableConfig "vars" of this program have no value for variable "endpoint", which it declares.*add them to the defaultValues of VariableConfig "vars"/ },
  { what: "JobRun without values of a configuration bound without default values", handler: jobRun, inputs: run({ configId: UNKNOWN, __program: planned({ defaultRow: "none" }) }), path: "variableValuesData", fix: /names no default values row of VariableConfig "vars" of this program.*No variable values provided.*pass variableValuesData or variableValuesId/ },
  { what: "Sink over the limit of its source with the sinks the program creates before it", handler: sink, inputs: sinkArgs({ __program: { declared: true, declaredBefore: ["claimed", ...ids("p", 99)] } }), path: "name", fix: /in source "web" already has 1 sinks and this program creates 99 more before this one \("p0", .*"p98"\), the service's limit is 100: delete one first, or use another source/ },
  { what: "Sink over the limit of a Source the program creates", handler: sink, inputs: sinkArgs({ sourceId: "planned", __program: { declared: true, declaredBefore: ids("p", 100) } }), path: "name", fix: /in source "planned" \(created in this run\) already has 0 sinks and this program creates 100 more before this one.*limit is 100/ },
  { what: "JobRun without values of an existing configuration without default values", handler: jobRun, inputs: run({ configId: "bound" }), path: "variableValuesData", fix: /names no default values row of variables configuration "vars".*pass variableValuesData/ },
];

/** `count` ids: prefix0, prefix1, ... */
function ids(prefix: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `${prefix}${i}`);
}

/** __program of a JobRun whose ComponentConfig "users" (bound to VariableConfig "vars") is declared in the program and not created yet. */
function planned(over: { isDisabled?: boolean; defaultValueNames?: string[]; defaultRow?: string; variablesId?: string; declared?: Props[] } = {}): Props {
  const { isDisabled = false, defaultRow = "declared", defaultValueNames = ["limit", "endpoint"], variablesId = UNKNOWN } = over;
  const declared = over.declared ?? [{ name: "limit", type: "int" }, { name: "endpoint", type: "string" }];
  return {
    declared: true,
    configuration: {
      resource: "users",
      isDisabled,
      bound: true,
      variablesId,
      variables: { resource: "vars", declared, defaultValueNames, valuesRowId: UNKNOWN, defaultRow },
    },
  };
}

// zod's own wording, which must never reach a user.
const ZOD_DEFAULT = /Invalid input|Invalid option|Too big|Too small|Unrecognized key|expected string, received/;

describe("preview refuses bad input", () => {
  it("has at least a hundred cases across all seven resources", () => {
    expect(cases.length).toBeGreaterThanOrEqual(100);
    expect(new Set(cases.map((c) => c.handler)).size).toBe(7);
  });

  it.each(cases.map((c) => [c.what, c] as const))("%s", async (_what, c) => {
    const r = await c.handler.check(h.ctx, c.olds ?? {}, { __resourceName: "bad", __owner: ownerUrn("bad"), ...c.inputs });
    const failures = r.failures ?? [];
    const at = failures.filter((f) => f.property === c.path);
    expect(at, `failures: ${JSON.stringify(failures)}`).not.toEqual([]);
    expect(at.map((f) => f.reason).join(" | ")).toMatch(c.fix);
    for (const f of failures) {
      expect(f.reason).not.toMatch(ZOD_DEFAULT);
      expect(f.reason.length).toBeLessThan(1200); // no value echoed whole
    }
  });

  it("wrote nothing while checking", () => {
    expect(h.emu.writes()).toEqual([]);
  });
});

describe("the provider plugin refuses the same bad input as the dynamic resources", () => {
  // Each case without program facts (a plugin has none) through the plugin's Check over gRPC: the
  // same failures, path and text, as the dynamic resources give the engine (failuresForEngine).
  // Those that hold only when the objects the input references are not the program's (a source
  // that does not exist yet, a configuration the program may change) are the plugin's warnings at
  // preview instead, and it refuses them at create, before the write (PluginResources.check).
  let p: Plugin;
  const messages: string[] = [];
  beforeAll(async () => {
    p = await startPlugin({ messages });
    await p.configure({ host: h.emu.url, token: MASTER_TOKEN });
  });
  afterAll(async () => p?.close());

  const TYPES = new Map<ResourceHandler, string>([
    [source, "Source"],
    [sink, "Sink"],
    [sourceSettings, "SourceSettings"],
    [sinkSettings, "SinkSettings"],
    [componentConfig, "ComponentConfig"],
    [variableConfig, "VariableConfig"],
    [jobRun, "JobRun"],
  ]);
  const withoutFacts = cases.filter((c) => !("__program" in c.inputs));
  const deferredSeen: string[] = [];

  it("covers the cases without program facts of every kind", () => {
    expect(withoutFacts.length).toBeGreaterThanOrEqual(90);
    expect(new Set(withoutFacts.map((c) => c.handler)).size).toBe(7);
  });

  it.each(withoutFacts.map((c) => [c.what, c] as const))("%s", async (_what, c) => {
    const type = TYPES.get(c.handler)!;
    const urn = urnOf(type, "bad");
    const dynamic = await c.handler.check(h.ctx, c.olds ?? {}, { __resourceName: "bad", __owner: ownerOfUrn(urn), ...c.inputs });
    const expected = failuresForEngine(dynamic.failures ?? []);
    messages.length = 0;
    const plugin = await p.check({ type, name: "bad" }, c.olds ?? {}, c.inputs);
    const deferred = messages.map((m) => m.slice(`${urn}: not refused yet: `.length).replace(/\. If this program creates that object, .*$/, ""));
    const said = [...plugin.failures.map((f) => (f.property ? `${f.property} ${f.reason}` : f.reason)), ...deferred];
    expect(said.sort()).toEqual(expected.map((f) => (f.property ? `${f.property} ${f.reason}` : f.reason)).sort());
    if (plugin.failures.length === 0 && deferred.length > 0) {
      const refused = await p.create({ type, name: "bad" }, plugin.inputs).catch((e: unknown) => e);
      expect(refused).toMatchObject({ code: grpc.status.FAILED_PRECONDITION, details: `${type} "bad": not written: ${deferred.join("; ")}` });
      deferredSeen.push(...deferred.map((d) => `${type}: ${d}`));
    }
  });

  it("refused at create what it left from preview, and wrote nothing", () => {
    expect(deferredSeen.length).toBeGreaterThanOrEqual(5);
    expect(h.emu.writes()).toEqual([]);
  });
});

describe("preview accepts a component the index does not list when the branch has configurations of it", () => {
  // A legacy component (or one the stack stopped listing) whose configurations the project still
  // has: `keboola-pulumi export` writes them, so preview must not refuse them.
  beforeAll(async () => {
    await h.ctx.client().storage.createConfig("default", "acme.legacy-unlisted", { configurationId: "old", name: "Old" });
    h.emu.clearRequests(); // the tests after this one count the checks' writes
  });

  it("passes the configured one, still refuses one neither listed nor configured", async () => {
    const legacy = extractor({ componentId: "acme.legacy-unlisted", configId: "old", adoptExisting: true });
    const ok = await componentConfig.check(h.ctx, {}, { __resourceName: "legacy", __owner: ownerUrn("legacy"), ...legacy });
    expect(ok.failures ?? []).toEqual([]);
    const other = await componentConfig.check(h.ctx, {}, { __resourceName: "other", __owner: ownerUrn("other"), ...extractor({ componentId: "acme.never-configured" }) });
    expect(other.failures).toEqual([{ property: "componentId", reason: expect.stringMatching(/^"acme.never-configured" is not a component of this stack/) }]);
  });
});

describe("preview passes what a declaration of the same program makes right", () => {
  const ok: Array<[string, ResourceHandler, Props]> = [
    ["a sink writing a new table with the columns of the program's other sink", sink, sinkArgs({ tableId: "in.c-new.same", __program: { declared: true, sharedTable: { sink: "first", columns: [col] } } })],
    // An existing table decides, whatever the other sink declares (its own check compares it).
    ["a sink matching an existing table another sink of the program also writes", sink, sinkArgs({ tableId: "in.c-fix.cols", columns: [{ type: "uuid", name: "a" }, { type: "body", name: "b" }], __program: { declared: true, sharedTable: { sink: "first", columns: [col] } } })],
    ["a sink whose program's other sink has columns not known yet", sink, sinkArgs({ tableId: "in.c-new.later", __program: { declared: true, sharedTable: { sink: "first", columns: UNKNOWN } } })],
    ["settings of a sink the program declares", sinkSettings, { sourceId: "planned", sinkId: "later", syncWait: false, __program: { declared: true } }],
    ["settings of an existing sink the program does not declare", sinkSettings, { sourceId: "web", sinkId: "claimed", syncWait: false, __program: { declared: false } }],
    [
      "placeholders declared by the VariableConfig of the program bound by configId",
      componentConfig,
      extractor({ variables: { configId: UNKNOWN }, configuration: { parameters: { api: { baseUrl: "https://x/" }, config: { jobs: [{ endpoint: "{{limit}}" }] } } }, __program: { boundVariables: { resource: "vars", declared: [{ name: "limit" }] } } }),
    ],
    ["a job with every value of a new configuration's variables", jobRun, run({ configId: UNKNOWN, variableValuesData: { limit: "5", endpoint: "users" }, __program: planned() })],
    ["a job of a new configuration using its complete default values", jobRun, run({ configId: UNKNOWN, __program: planned() })],
    ["a job using the values row of a new VariableConfig", jobRun, run({ configId: UNKNOWN, variableValuesId: UNKNOWN, __program: planned() })],
    ["a job whose new configuration's isDisabled is not known yet", jobRun, run({ configId: UNKNOWN, variableValuesData: { limit: "5", endpoint: "x" }, __program: planned({ isDisabled: UNKNOWN as unknown as boolean }) })],
    ["a job using an existing values row with every value", jobRun, run({ configId: "bound", variableValuesId: "values" })],
    // Its VariableConfig's id is not known: it may be updated in this run, and have that row.
    ["a job naming a row that a variables configuration has, of a VariableConfig whose id is not known", jobRun, run({ configId: UNKNOWN, variableValuesId: "values", __program: planned() })],
    ["a job naming an existing row of an existing VariableConfig of the program", jobRun, run({ configId: UNKNOWN, variableValuesId: "values", __program: planned({ variablesId: "vars", declared: [{ name: "limit", type: "int" }] }) })],
  ];

  it.each(ok)("passes %s", async (_what, handler, inputs) => {
    const r = await handler.check(h.ctx, {}, { __resourceName: "good", __owner: ownerUrn("good"), ...inputs });
    expect(r.failures ?? []).toEqual([]);
  });

  it("wrote nothing while checking", () => {
    expect(h.emu.writes()).toEqual([]);
  });
});

describe("preview counts the sources the program creates against the branch's limit", () => {
  let h2: Harness;
  beforeAll(async () => {
    h2 = await startHarness({ taskDurationMs: 0 });
    const stream = await h2.ctx.client().stream();
    for (let i = 0; i < 98; i++) await stream.runTask(await stream.createSource("default", { sourceId: `have-${i}`, name: `have-${i}`, type: "http", description: "" }), "setup");
    await fetch(`${h2.emu.url}/_emulator/state`); // settle the last tasks
    h2.emu.clearRequests();
  }, 60_000);
  afterAll(async () => h2?.close());

  const check = (declaredBefore: string[]) => source.check(h2.ctx, {}, { __resourceName: "third", __owner: ownerUrn("third"), name: "Third", __program: { declaredBefore } });

  it("refuses the source the branch has no room for once the program's earlier new sources are created", async () => {
    const r = await check(["first", "second"]);
    expect(r.failures).toEqual([
      { property: "name", reason: 'in branch default already has 98 sources and this program creates 2 more before this one ("first", "second"), the service\'s limit is 100: delete one first, or use another branch' },
    ]);
  });

  it("does not count the program's sources that exist already", async () => {
    expect((await check(["have-0", "second"])).failures).toEqual([]);
  });

  it("wrote nothing while checking", () => {
    expect(h2.emu.writes()).toEqual([]);
  });
});
