import { describe, expect, it } from "vitest";
import { source, sink, sinkSettings } from "../provider/hosted";
import type { Props, ResourceContext } from "../../provider/lifecycle/types";

// Diff decisions: only real changes, with the right update or replace. No API is needed.

const ctx: ResourceContext = {
  client: () => {
    throw new Error("diff must not call the API");
  },
};

const sinkOuts: Props = {
  branch: "default",
  branchId: 101,
  projectId: 1,
  sourceId: "events",
  sinkId: "raw",
  name: "Raw",
  description: "",
  tableId: "in.c-a.raw",
  columns: [
    { type: "uuid", name: "id" },
    { type: "path", name: "user", path: "user.id" },
    { type: "template", name: "t", template: { language: "jsonnet", content: "1" } },
  ],
  enabled: true,
  adoptExisting: false,
};
const sinkNews = (over: Props = {}): Props => ({
  branchId: "default",
  sourceId: "events",
  sinkId: "raw",
  name: "Raw",
  description: "",
  tableId: "in.c-a.raw",
  columns: [
    { type: "uuid", name: "id" },
    { type: "path", name: "user", path: "user.id", rawString: false },
    { type: "template", name: "t", template: { content: "1" } },
  ],
  enabled: true,
  adoptExisting: false,
  ...over,
});

describe("Sink diff", () => {
  it("sees no change where only defaults differ (rawString false, template language)", async () => {
    expect(await sink.diff(ctx, "id", sinkOuts, sinkNews())).toMatchObject({ changes: false, replaces: [] });
  });

  it("updates in place for a mapping, table, name, filter or enabled change", async () => {
    for (const over of [
      { columns: [{ type: "uuid", name: "id" }] },
      { tableId: "in.c-a.other" },
      { name: "Renamed" },
      { allowedSignals: ["logs"] },
      { enabled: false },
      { rotateToken: "1" },
    ]) {
      expect(await sink.diff(ctx, "id", sinkOuts, sinkNews(over)), JSON.stringify(over)).toMatchObject({ changes: true, replaces: [] });
    }
  });

  it("replaces for a new sinkId, source or branch", async () => {
    expect((await sink.diff(ctx, "id", sinkOuts, sinkNews({ sinkId: "raw-2" }))).replaces).toEqual(["sinkId"]);
    expect((await sink.diff(ctx, "id", sinkOuts, sinkNews({ sourceId: "other" }))).replaces).toEqual(["sourceId"]);
    expect((await sink.diff(ctx, "id", sinkOuts, sinkNews({ branchId: "202" }))).replaces).toEqual(["branchId"]);
  });

  it("ignores adoptExisting", async () => {
    expect((await sink.diff(ctx, "id", sinkOuts, sinkNews({ adoptExisting: true }))).changes).toBe(false);
  });
});

describe("Source diff", () => {
  const outs: Props = { branch: "default", branchId: 101, sourceId: "events", name: "Events", description: "", type: "http", url: "u", adoptExisting: false };
  const news = (over: Props = {}): Props => ({ branchId: "default", sourceId: "events", name: "Events", description: "", type: "http", enabled: true, adoptExisting: false, ...over });

  it("updates name, description and type in place; replaces for id or branch", async () => {
    expect(await source.diff(ctx, "id", outs, news())).toMatchObject({ changes: false });
    expect(await source.diff(ctx, "id", outs, news({ type: "otlp" }))).toMatchObject({ changes: true, replaces: [] });
    expect((await source.diff(ctx, "id", outs, news({ sourceId: "x" }))).replaces).toEqual(["sourceId"]);
    expect((await source.diff(ctx, "id", outs, news({ branchId: "7" }))).replaces).toEqual(["branchId"]);
    expect(await source.diff(ctx, "id", outs, news({ enabled: false }))).toMatchObject({ changes: true, replaces: [] });
    expect(await source.diff(ctx, "id", outs, news({ rotateSecret: "1" }))).toMatchObject({ changes: true, replaces: [] });
  });
});

describe("SinkSettings diff", () => {
  const outs: Props = { branchId: "default", sourceId: "s", sinkId: "k", targetImportTrigger: { interval: "1m0s", size: "1024KB" } };
  it("compares durations and sizes by value", async () => {
    expect((await sinkSettings.diff(ctx, "id", outs, { ...outs, targetImportTrigger: { interval: "1m", size: "1MB" } })).changes).toBe(false);
    expect(await sinkSettings.diff(ctx, "id", outs, { ...outs, targetImportTrigger: { interval: "2m", size: "1MB" } })).toMatchObject({ changes: true, replaces: [] });
    expect((await sinkSettings.diff(ctx, "id", outs, { ...outs, sinkId: "other" })).replaces).toEqual(["sinkId"]);
  });
});
