// check refuses the duration and size spellings and the template calls the service refuses (or
// accepts, then fails on every record), naming the property and the fix, and writes nothing.
// Expected Go texts: golang/go src/time/format.go (time.ParseDuration, used by keboola/keboola-as-code
// internal/pkg/service/common/duration/duration.go) and c2h5oh/datasize datasize.go at the version
// keboola/keboola-as-code go.mod pins; template texts: the service's go-jsonnet and
// internal/pkg/service/stream/mapping/jsonnet/jsonnet.go.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sink, sinkSettings, sourceSettings } from "./hosted";
import { ownerUrn, startHarness, type Harness } from "./harness";

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await h?.close();
});

describe("settings spellings at check", () => {
  it.each([
    ["stagingUploadTrigger", "interval", "5 m", 'time: unknown unit " m" in duration "5 m"'],
    ["stagingUploadTrigger", "interval", " 30s", 'time: invalid duration " 30s"'],
    ["targetImportTrigger", "interval", "2m ", 'time: unknown unit "m " in duration "2m "'],
    ["targetImportTrigger", "interval", "1d", 'time: unknown unit "d" in duration "1d"'],
    ["targetImportTrigger", "interval", "90", 'time: missing unit in duration "90"'],
    ["stagingUploadTrigger", "size", "5Mb", 'strconv.UnmarshalText: parsing "5Mb": unit with capital unit prefix and lower case unit (b) - bits, not bytes '],
    ["targetImportTrigger", "size", "5MiB", 'strconv.UnmarshalText: parsing "5MiB": invalid syntax'],
    ["targetImportTrigger", "size", "0.5GB", 'strconv.UnmarshalText: parsing "0.5GB": invalid syntax'],
  ])("%s.%s = %j", async (trigger, field, value, goError) => {
    const before = h.writes().length;
    for (const [handler, extra] of [
      [sourceSettings, { sourceId: "src" }],
      [sinkSettings, { sourceId: "src", sinkId: "snk" }],
    ] as const) {
      const r = await handler.check(h.ctx, {}, { __resourceName: "s", __owner: ownerUrn("s"), ...extra, [trigger]: { [field]: value } });
      expect(r.failures).toHaveLength(1);
      expect(r.failures![0].property).toBe(`${trigger}.${field}`);
      expect(r.failures![0].reason).toBe(
        `${JSON.stringify(value)} is not a ${field === "interval" ? "duration" : "size"} the service accepts (${goError}): write it like ` +
          (field === "interval" ? "45s or 1m30s (units h, m, s, ms; no spaces)" : "5MB or 100KB (whole numbers; units B, KB, MB, GB)"),
      );
    }
    expect(h.writes().length).toBe(before);
  });

  it("accepts the service's other spellings: 1h30m, 1.5m, 5 MB, 5mb", async () => {
    const r = await sourceSettings.check(h.ctx, {}, {
      __resourceName: "s",
      __owner: ownerUrn("s"),
      sourceId: "src",
      __program: { declared: true }, // its Source is declared in the same program, not created yet
      stagingUploadTrigger: { interval: "1.5m", size: "5 MB" },
      targetImportTrigger: { interval: "1h30m", size: "5mb" },
    });
    expect(r.failures ?? []).toEqual([]);
  });
});

describe("template calls at check", () => {
  it("refuses Body(1) in a sink's column at its content path, writing nothing", async () => {
    const before = h.writes().length;
    const r = await sink.check(h.ctx, {}, {
      __resourceName: "k",
      __owner: ownerUrn("k"),
      sourceId: "src",
      name: "K",
      tableId: "in.c-spell.k",
      columns: [
        { type: "uuid", name: "id" },
        { type: "template", name: "v", template: { language: "jsonnet", content: "{\n  v: Body(1),\n}" } },
      ],
    });
    const failure = r.failures?.find((f) => f.property === "columns[1].template.content");
    expect(failure?.reason).toBe(
      'Body(1) at line 2, column 6 cannot succeed: the service accepts the sink, then refuses every record that evaluates it ' +
        '(Invalid value for column "v": first parameter must be a string.). Fix: call Body("path.to.field") or Body("path.to.field", default); Body() returns the whole body.',
    );
    expect(h.writes().length).toBe(before);
  });
});
