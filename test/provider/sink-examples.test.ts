import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { sink, source } from "./hosted";
import { PartialFailure, type Props } from "../../provider/lifecycle/types";
import { createVia, ownerUrn, startHarness, updateVia, type Harness } from "./harness";
import { StreamApi, type StreamSink, type StreamTestResult } from "../../provider/api/stream";
import { confirmExamples, ExamplesNotConfirmed, sameMapping, sinkExampleRows, type ExampleMapping } from "../../provider/kinds/sink/examples";
import type { SinkExample } from "../../keboola/stream-examples";
import { KeboolaApiError } from "../../provider/api/errors";
import { canonicalColumn, columnsSchema } from "../../provider/validation/columns";

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

describe("confirmExamples in detail, on a stand-in test endpoint", () => {
  const target = { branchId: "default", sourceId: "src", sinkId: "mine" };
  const mapping: ExampleMapping = { columns: columnsSchema.parse(COLUMNS).map(canonicalColumn) };
  const rowOf = (values: Record<string, string>) => ({ rows: [{ columns: Object.entries(values).map(([name, value]) => ({ name, value })) }] });
  const answer = (tables: StreamTestResult["tables"]): StreamTestResult => ({ projectId: 1, branchId: 1, sourceId: "src", tables });
  const summaryRow = (summary: string, user: string) => ({ sinkId: "mine", tableId: "in.c-x.mine", ...rowOf({ id: "5d2b8a8e-0d1c-4a44-9c3b-0e7b5c6a1f00", at: "2026-11-28T00:00:00.000Z", user, summary }) });
  const stand = (testSource: (req: unknown) => Promise<StreamTestResult>, listSinks: () => Promise<{ sinks: StreamSink[] }> = async () => ({ sinks: [] })) => {
    const calls: unknown[] = [];
    const api = { testSource: async (_b: string, _s: string, req: unknown) => (calls.push(req), testSource(req)), listSinks } as unknown as StreamApi;
    return { api, calls };
  };
  const notConfirmed = async (p: Promise<unknown>) => {
    const err = await p.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExamplesNotConfirmed);
    return err as ExamplesNotConfirmed;
  };
  const request = { service: "stream" as const, method: "POST", path: "/v1/test" };
  const examples = (...e: unknown[]) => e as SinkExample[];

  it("stops asking once the endpoint does not answer, and says the next up asks again", async () => {
    const s = stand(async () => {
      throw new KeboolaApiError(503, undefined, "Service Unavailable", request);
    });
    const err = await notConfirmed(confirmExamples(s.api, target, mapping, examples(SIGNUP, VISIT), []));
    expect(s.calls).toHaveLength(1);
    expect(err.message).toBe(
      "the deployed sink does not confirm an example (the next `pulumi up` checks again):\n  examples[0]: the service's test endpoint could not be asked: POST /v1/test (stream) failed with 503: Service Unavailable",
    );
    expect(err.confirmed).toEqual([]);
  });

  it("counts the examples it could not confirm, names the sinks an answer lists, and keeps those confirmed before", async () => {
    const s = stand(async () => answer([{ sinkId: "someone", tableId: "in.c-x.y", rows: [] }, { sinkId: "else", tableId: "in.c-x.z", rows: [] }]));
    const err = await notConfirmed(confirmExamples(s.api, target, mapping, examples(SIGNUP, VISIT), []));
    expect(err.message).toMatch(/^the deployed sink does not confirm 2 examples \(the next `pulumi up` checks again\):\n {2}examples\[0\]: the service's test endpoint answers no row of the sink \(its answer lists "someone", "else"\)\. The deployed mapping behaves differently/);
    const one = stand(async () => answer([]));
    const kept = await notConfirmed(confirmExamples(one.api, target, mapping, examples(SIGNUP, VISIT), examples(SIGNUP)));
    expect(one.calls).toHaveLength(1);
    expect(kept.message).toContain("examples[1]: the service's test endpoint answers no row of the sink (its answer lists no sink).");
    expect(kept.confirmed).toEqual([SIGNUP]);
  });

  it("says what the local evaluation writes only for the columns that differ and do not vary", async () => {
    const s = stand(async () => answer([summaryRow("other", "u-1")]));
    const err = await notConfirmed(confirmExamples(s.api, target, mapping, examples(SIGNUP), []));
    expect(err.message).toContain('column "summary": the service writes "other", expected "u-1 did signup" (the local evaluation writes column "summary" "u-1 did signup").');
    expect(err.message).not.toContain("the mapping writes");
    // A uuid the service writes in another shape: no local value to quote (it varies).
    const odd = stand(async () => answer([{ ...summaryRow("u-1 did signup", "u-1"), ...rowOf({ id: "not-a-uuid", at: "2026-11-28T00:00:00.000Z", user: "u-1", summary: "u-1 did signup" }) }]));
    const varying = await notConfirmed(confirmExamples(odd.api, target, mapping, examples(SIGNUP), []));
    expect(varying.message).toContain('column "id"');
    expect(varying.message).not.toContain("the local evaluation writes");
    await expect(confirmExamples(stand(async () => answer([summaryRow("u-1 did signup", "u-1")])).api, target, mapping, examples(SIGNUP), [])).resolves.toEqual([SIGNUP]);
  });

  it("a refusal for a column no sink of the source has blames another sink; a failed listing reports the refusal as it is", async () => {
    const refusal = 'Invalid value for column "order": path "order.id" not found in the body.';
    const refuse = async () => {
      throw new KeboolaApiError(422, "stream.api.unprocessableContent", refusal, request);
    };
    const loose = { sinkId: "loose", table: { type: "keboola", tableId: "in.c-x.l", mapping: { columns: [{ type: "path", name: "order", path: "order.id", defaultValue: "none" }] } } } as unknown as StreamSink;
    const bare = { sinkId: "bare" } as unknown as StreamSink;
    const err = await notConfirmed(confirmExamples(stand(refuse, async () => ({ sinks: [bare, loose] })).api, target, mapping, examples(VISIT), []));
    expect(err.message).toContain(`examples[0]: the service's test endpoint refuses the record (${refusal}), for a column this sink does not have: another sink of the source refuses it. Give the example what that sink needs too.`);
    const listingFails = await notConfirmed(
      confirmExamples(stand(refuse, async () => Promise.reject(new Error("listing failed"))).api, target, mapping, examples(VISIT), []),
    );
    expect(listingFails.message).toContain(`refuses the record (${refusal}), for a column this sink does not have`);
    // A sink of the source that refuses with this very message is named.
    const strict = { sinkId: "strict", table: { type: "keboola", tableId: "in.c-x.s", mapping: { columns: [{ type: "path", name: "order", path: "order.id" }] } } } as unknown as StreamSink;
    const blamed = await notConfirmed(confirmExamples(stand(refuse, async () => ({ sinks: [loose, strict] })).api, target, mapping, examples(VISIT), []));
    expect(blamed.message).toContain('and sink "strict" refuses this one');
    // One that refuses for more than one column, this message among them, too.
    const double = { ...strict, sinkId: "double", table: { type: "keboola", tableId: "in.c-x.d", mapping: { columns: [{ type: "path", name: "cart", path: "cart.id" }, { type: "path", name: "order", path: "order.id" }] } } } as unknown as StreamSink;
    const both = await notConfirmed(confirmExamples(stand(refuse, async () => ({ sinks: [double] })).api, target, mapping, examples(VISIT), []));
    expect(both.message).toContain('and sink "double" refuses this one');
  });

  it("two mappings map alike with the same columns and the same signals in any order; an empty filter is none", () => {
    const columns = [{ type: "body", name: "b" }] as ExampleMapping["columns"];
    expect(sameMapping({ columns, allowedSignals: ["logs", "traces"] }, { columns, allowedSignals: ["traces", "logs"] })).toBe(true);
    expect(sameMapping({ columns, allowedSignals: [] }, { columns })).toBe(true);
    expect(sameMapping({ columns, allowedSignals: ["logs"] }, { columns, allowedSignals: ["traces"] })).toBe(false);
    expect(sameMapping({ columns }, { columns: [{ type: "body", name: "c" }] as ExampleMapping["columns"] })).toBe(false);
  });

  it("the review's rows: the old examples when the new inputs have none; a signal filter's non-strings ignored", () => {
    const olds = { columns: COLUMNS, examples: [SIGNUP] };
    expect(sinkExampleRows("http", olds, { columns: COLUMNS }).map((r) => r.example)).toEqual([SIGNUP]);
    const otlp = [{ type: "template", name: "name", rawString: true, template: { content: "Body('metric_name')" } }];
    const trace = { signal: "traces", record: { name: "GET /" }, expect: "omitted" };
    const rows = sinkExampleRows("otlp", undefined, { columns: otlp, allowedSignals: ["metrics", 7], examples: [trace] });
    expect(rows.map((r) => r.after.kind)).toEqual(["omitted"]);
    expect(sinkExampleRows("otlp", undefined, { columns: otlp, allowedSignals: [7], examples: [trace] }).map((r) => r.after.kind)).not.toEqual(["omitted"]);
  });
});
