import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { sink, source } from "./hosted";
import { PartialFailure, type Props } from "../../provider/resources/types";
import { createVia, ownerUrn, startHarness, updateVia, type Harness } from "./harness";
import { StreamApi, type StreamTestResult } from "../../provider/api/stream";
import { sinkExampleRows } from "../../provider/resources/sink-examples";

// A Sink's examples through its handler against the emulator: evaluated at preview against the
// new mapping (nothing sent), and after a create or update posted to the source's test endpoint,
// one request per example not yet confirmed against the deployed mapping; a difference fails the
// operation with the sink recorded and the example left unconfirmed, so the next update asks again.

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
  await createVia(source, h.ctx, "ex-http", { name: "Ex Http", sourceId: "ex-http" });
  await createVia(source, h.ctx, "ex-otlp", { name: "Ex Otlp", sourceId: "ex-otlp", type: "otlp" });
});
afterAll(async () => h?.close());
beforeEach(() => {
  h.emu.clearRequests();
  h.emu.setFaults({});
});
afterEach(() => {
  vi.restoreAllMocks();
});

/** The test endpoint requests since the last clear. */
const testCalls = () => h.emu.requests().filter((r) => r.method === "POST" && /\/sources\/[^/]+\/test(\?|$)/.test(r.path));

const COLUMNS = [
  { type: "uuid", name: "id" },
  { type: "datetime", name: "at" },
  { type: "path", name: "user", path: "user.id", rawString: true },
  { type: "template", name: "summary", rawString: true, template: { content: "Body('user.id') + ' did ' + Body('action', 'nothing')" } },
];
const SIGNUP = { payload: { user: { id: "u-1" }, action: "signup" }, expect: { id: { shape: "uuid" }, at: { shape: "datetime" }, user: "u-1", summary: "u-1 did signup" } };
const VISIT = { payload: { user: { id: "u-2" } }, expect: { summary: "u-2 did nothing" } };

const actions = (name: string, extra: Props = {}): Props => ({ sourceId: "ex-http", name, tableId: `in.c-ex.${name.toLowerCase().replace(/\W/g, "")}`, columns: COLUMNS, examples: [SIGNUP, VISIT], ...extra });

describe("at preview: the examples against the new mapping, nothing sent", () => {
  it("examples that hold pass; one that does not names examples[i], the column, expected and actual", async () => {
    expect((await sink.check(h.ctx, {}, actions("Holds"))).failures).toEqual([]);
    const wrong = { payload: { userId: "u-3", action: "login" }, expect: { user: "u-3" } };
    const r = await sink.check(h.ctx, {}, { ...actions("Wrong"), examples: [SIGNUP, { ...SIGNUP, expect: { summary: "u-1 signed up" } }, wrong] });
    expect(r.failures).toEqual([
      { property: "examples[1]", reason: 'column "summary": the mapping writes "u-1 did signup", expected "u-1 signed up"' },
      { property: "examples[2]", reason: 'column "user": the service refuses the record: Invalid value for column "user": path "user.id" not found in the body.' },
      { property: "examples[2]", reason: 'column "summary": the service refuses the record: Invalid value for column "summary": path "user.id" not found in the body.' },
    ]);
    expect(h.writes()).toEqual([]);
    expect(testCalls()).toEqual([]);
  });

  it("a template's error, in the service's words; an exact value of a varying column", async () => {
    const columns = [...COLUMNS, { type: "template", name: "code", template: { content: "local e = Body('error');\ne.code" } }];
    const r = await sink.check(h.ctx, {}, { ...actions("Tpl"), columns, examples: [{ payload: { user: { id: "u" }, error: "boom" }, expect: { at: "2024-01-01T00:00:00.000Z" } }] });
    expect(r.failures?.map((f) => `${f.property}: ${f.reason}`)).toEqual([
      // go-jsonnet's text as the service reports it (no line: the service's text has none; a
      // template that cannot compile, or a call that fails for every record, is refused on
      // columns[i] with its line before any example is evaluated).
      'examples[0]: column "code": the service refuses the record: Invalid value for column "code": Unexpected type string, expected number.',
      expect.stringMatching(/^examples\[0\]: column "at": its value differs from record to record .* assert its shape, e\.g\. \{ shape: "datetime" \}, or leave it out of expect$/),
    ]);
  });

  it("the source's type: from the program before the source exists, else the service's source", async () => {
    const otlp = { signal: "logs", record: { body: "hi" }, expect: { msg: '"hi"' } };
    const columns = [{ type: "template", name: "msg", template: { content: "Body('body')" } }];
    // A Source of this program, not created yet (its id unknown at preview), said to be HTTP.
    const declared = await sink.check(h.ctx, {}, { sourceId: "04da6b54-80e4-46f7-96ec-b56ff0331ba9", name: "Later", tableId: "in.c-ex.later", columns, examples: [otlp], __program: { declared: true, sourceType: "http" } });
    expect(declared.failures).toEqual([{ property: "examples[0]", reason: "the example is an OTLP record (signal, record), but the sink's source is an HTTP source: give { payload, headers?, expect }" }]);
    // The same sink of the existing OTLP source, read from the service.
    expect((await sink.check(h.ctx, {}, { sourceId: "ex-otlp", name: "Logs", tableId: "in.c-ex.logs", columns, examples: [otlp] })).failures).toEqual([]);
    const wrongKind = await sink.check(h.ctx, {}, { sourceId: "ex-otlp", name: "Logs", tableId: "in.c-ex.logs", columns, examples: [{ payload: { body: "hi" }, expect: {} }] });
    expect(wrongKind.failures?.[0]?.reason).toMatch(/^the example is an HTTP event \(payload\), but the sink's source is an OTLP source/);
    // A source that exists nowhere (refused for that): each example as the event it is.
    const nowhere = await sink.check(h.ctx, {}, { sourceId: "nowhere", name: "Logs", tableId: "in.c-ex.logs", columns, examples: [otlp] });
    expect(nowhere.failures?.map((f) => f.property)).toEqual(["sourceId"]);
    expect(h.writes()).toEqual([]);
  });

  it("an OTLP sink's examples per signal: a row, or omitted by allowedSignals", async () => {
    const columns = [{ type: "template", name: "name", rawString: true, template: { content: "Body('metric_name')" } }];
    const examples = [
      { signal: "metrics", record: { metric_name: "cpu", value: 1 }, expect: { name: "cpu" } },
      { signal: "logs", record: { body: "x" }, expect: "omitted" },
      { signal: "traces", record: { name: "GET /" }, expect: { name: "GET /" } },
    ];
    const r = await sink.check(h.ctx, {}, { sourceId: "ex-otlp", name: "Metrics", tableId: "in.c-ex.metrics", columns, allowedSignals: ["metrics"], examples });
    expect(r.failures).toEqual([{ property: "examples[2]", reason: 'the sink takes only metrics records (allowedSignals), so this traces record is not written; expect "omitted", or allow the signal' }]);
  });

  it("refuses a malformed example with its path", async () => {
    const r = await sink.check(h.ctx, {}, { ...actions("Bad"), examples: [{ payload: { a: 1 }, expect: { user: 5 } }] });
    expect(r.failures?.map((f) => f.reason)).toEqual([expect.stringContaining("must be the exact text of the column (a string)")]);
  });
});

describe("after a deploy: the examples against the service's test endpoint", () => {
  it("a create posts each example once and records them confirmed; no change posts nothing; an examples-only change writes nothing and posts the new one", async () => {
    const created = await createVia(sink, h.ctx, "confirm", actions("Confirm"));
    expect(testCalls().map((r) => r.path)).toEqual(["/stream/v1/branches/default/sources/ex-http/test", "/stream/v1/branches/default/sources/ex-http/test"]);
    expect(created.outs.examples).toEqual([SIGNUP, VISIT]);

    h.emu.clearRequests();
    const same = await updateVia(sink, h.ctx, "confirm", created.id, created.outs, created.inputs, actions("Confirm"));
    expect(same.diff.changes).toBe(false);
    expect(testCalls()).toEqual([]);

    const third = { payload: { user: { id: "u-9" }, action: "logout" }, expect: { summary: "u-9 did logout" } };
    const more = await updateVia(sink, h.ctx, "confirm", created.id, created.outs, created.inputs, actions("Confirm", { examples: [SIGNUP, VISIT, third] }));
    expect(more.diff).toMatchObject({ changes: true, replaces: [] });
    expect(h.writes()).toEqual(["POST /stream/v1/branches/default/sources/ex-http/test"]);
    expect(more.outs.examples).toEqual([SIGNUP, VISIT, third]);

    // A mapping change posts every example again.
    h.emu.clearRequests();
    const renamed = COLUMNS.map((c) => (c.name === "summary" ? { ...c, template: { content: "Body('user.id') + ' did ' + Body('action', 'nothing') + ''" } } : c));
    const changed = await updateVia(sink, h.ctx, "confirm", created.id, more.outs, more.inputs, actions("Confirm", { columns: renamed, examples: [SIGNUP, VISIT, third] }));
    expect(h.writes().filter((w) => w.startsWith("PATCH"))).toHaveLength(1);
    expect(testCalls()).toHaveLength(3);
    expect(changed.outs.examples).toHaveLength(3);

    // Refresh keeps the confirmed examples while the service's mapping is the recorded one.
    const read = await sink.read(h.ctx, created.id, changed.outs);
    expect(read.props?.examples).toEqual([SIGNUP, VISIT, third]);
  });

  it("an answer that differs fails the create with the sink recorded, the example unconfirmed; the next update posts it again", async () => {
    const real = StreamApi.prototype.testSource;
    const spy = vi.spyOn(StreamApi.prototype, "testSource").mockImplementation(async function (this: StreamApi, ...args) {
      const answer: StreamTestResult = await real.apply(this, args);
      // As if the deployed mapping wrote another summary for the second example.
      for (const col of answer.tables.find((t) => t.sinkId === "differs")?.rows[0]?.columns ?? []) if (col.name === "summary" && col.value === "u-2 did nothing") col.value = "u-2 did ";
      return answer;
    });
    const inputs = (await sink.check(h.ctx, {}, { __resourceName: "differs", __owner: ownerUrn("differs"), ...actions("Differs") })).inputs as Props;
    const err = await sink.create(h.ctx, inputs).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PartialFailure);
    const failure = err as PartialFailure;
    expect(failure.message).toContain('Sink "ex-http/differs" (resource "differs"): the deployed sink does not confirm an example (the next `pulumi up` checks again):');
    expect(failure.message).toContain('examples[1]: the service\'s test endpoint answers otherwise: column "summary": the service writes "u-2 did ", expected "u-2 did nothing" (the local evaluation writes column "summary" "u-2 did nothing")');
    expect(failure.message).toContain("that is a bug of keboola-pulumi, please report it");
    expect(failure.id).toBe("101/ex-http/differs");
    expect(failure.properties.examples).toEqual([SIGNUP]);
    expect(spy).toHaveBeenCalledTimes(2);

    // The next `up`: the recorded examples differ from the inputs, so the sink is updated: no write, one request.
    spy.mockRestore();
    h.emu.clearRequests();
    const diff = await sink.diff(h.ctx, failure.id, failure.properties, inputs);
    expect(diff.changes).toBe(true);
    const updated = await sink.update(h.ctx, failure.id, failure.properties, inputs);
    expect(h.writes()).toEqual(["POST /stream/v1/branches/default/sources/ex-http/test"]);
    expect((updated.outs as Props).examples).toEqual([SIGNUP, VISIT]);
  });

  it("an update whose check fails keeps the new mapping recorded, the examples unconfirmed", async () => {
    const created = await createVia(sink, h.ctx, "upd-differs", actions("Upd Differs"));
    vi.spyOn(StreamApi.prototype, "testSource").mockResolvedValue({ projectId: 4242, branchId: 101, sourceId: "ex-http", tables: [] });
    const columns = COLUMNS.map((c) => (c.name === "user" ? { ...c, defaultValue: "anonymous" } : c));
    const checked = (await sink.check(h.ctx, created.inputs, { __resourceName: "upd-differs", __owner: ownerUrn("upd-differs"), ...actions("Upd Differs", { columns }) })).inputs as Props;
    const err = await sink.update(h.ctx, created.id, created.outs, checked).catch((e: unknown) => e);
    expect(err, (err as Error).message).toBeInstanceOf(PartialFailure);
    expect((err as Error).message).toContain("examples[0]: the service's test endpoint answers no row of the sink (its answer lists no sink)");
    expect((err as Error).message).toContain("examples[1]:");
    expect((err as PartialFailure).properties).toMatchObject({ columns: expect.arrayContaining([{ type: "path", name: "user", path: "user.id", rawString: true, defaultValue: "anonymous" }]) });
    expect((err as PartialFailure).properties.examples).toBeUndefined();
  });

  it("a refusal another sink of the source explains says so; one this sink's column explains is a bug of ours", async () => {
    // Another sink of the source that needs a field the examples do not have.
    await createVia(sink, h.ctx, "strict", { sourceId: "ex-http", name: "Strict", tableId: "in.c-ex.strict", columns: [{ type: "path", name: "order", path: "order.id" }] });
    h.emu.clearRequests();
    const inputs = (await sink.check(h.ctx, {}, { __resourceName: "blamed", __owner: ownerUrn("blamed"), ...actions("Blamed", { examples: [VISIT] }) })).inputs as Props;
    const err = await sink.create(h.ctx, inputs).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PartialFailure);
    expect((err as Error).message).toContain(
      'examples[0]: cannot be checked against the service: its test endpoint maps a record through every sink of the source at once, and sink "strict" refuses this one (Invalid value for column "order": path "order.id" not found in the body.). Give the example what that sink needs too',
    );
    expect(testCalls()).toHaveLength(1);
    await sink.delete(h.ctx, "101/ex-http/strict", { branchId: "default", sourceId: "ex-http", sinkId: "strict" });

    // The service refuses for a column of this sink that the local evaluation maps.
    vi.spyOn(StreamApi.prototype, "testSource").mockRejectedValue(
      new (await import("../../provider/api/errors")).KeboolaApiError(422, "stream.api.unprocessableContent", 'Invalid value for column "summary": path "user.id" not found in the body.', { service: "stream", method: "POST", path: "/v1/test" }),
    );
    const again = await sink.update(h.ctx, (err as PartialFailure).id, (err as PartialFailure).properties, inputs).catch((e: unknown) => e);
    expect((again as Error).message).toContain('examples[0]: the service\'s test endpoint refuses the record (Invalid value for column "summary": path "user.id" not found in the body.), but the local evaluation writes a row.');
  });

  it("an OTLP sink posts each record with its signal; an omitted one is confirmed by its absence", async () => {
    const columns = [{ type: "template", name: "name", rawString: true, template: { content: "Body('metric_name')" } }];
    const examples = [
      { signal: "metrics", record: { metric_name: "cpu", value: 1 }, expect: { name: "cpu" } },
      { signal: "traces", record: { name: "GET /" }, expect: "omitted" },
    ];
    const created = await createVia(sink, h.ctx, "otlp-ex", { sourceId: "ex-otlp", name: "Otlp Ex", tableId: "in.c-ex.otlpex", columns, allowedSignals: ["metrics"], examples });
    expect(testCalls().map((r) => r.path)).toEqual(["/stream/v1/branches/default/sources/ex-otlp/test?signal=metrics", "/stream/v1/branches/default/sources/ex-otlp/test?signal=traces"]);
    expect(created.outs.examples).toEqual(examples);
  });
});

describe("rows before and after a change, for the review", () => {
  it("each example of the new inputs under the old and the new mapping", () => {
    const olds = { columns: COLUMNS, examples: [SIGNUP] };
    const news = { columns: COLUMNS.map((c) => (c.name === "user" ? { ...c, path: "userId" } : c)), examples: [SIGNUP, { payload: { userId: "u-5", user: { id: "u-5" } }, expect: {} }] };
    const rows = sinkExampleRows("http", olds, news);
    expect(rows.map((r) => [r.index, r.before?.kind, r.after.kind, r.changed])).toEqual([
      [0, "row", "refused", true],
      [1, "row", "row", false],
    ]);
    expect(sinkExampleRows("http", undefined, news).every((r) => r.before === undefined && r.changed)).toBe(true);
    expect(sinkExampleRows(undefined, olds, { columns: "04da6b54-80e4-46f7-96ec-b56ff0331ba9" })).toEqual([]);
  });
});
