import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sink, source, sourceSettings } from "./hosted";
import { MASTER_TOKEN, startHarness, type Harness } from "./harness";
import { call, pollUntil } from "../emulator/helpers";

// The Stream service serves only the default branch: a development branch's id answers 400
// "Currently only default branch is supported, branch "<id>" is not default." (keboola-as-code
// internal/pkg/service/stream/dependencies/reqbranch.go, reqbranch_test.go). Sources, sinks and
// their settings in one are refused at preview, writing nothing; the default branch's numeric id
// is the default branch.

let h: Harness;
let dev: number;
beforeAll(async () => {
  h = await startHarness({ taskDurationMs: 5 });
  const job = await call(h.emu.url, "POST", "/v2/storage/dev-branches", { token: MASTER_TOKEN, json: { name: "feature" } });
  const done = await pollUntil(() => call(h.emu.url, "GET", `/v2/storage/jobs/${job.body.id}`, { token: MASTER_TOKEN }), (r) => r.body.status === "success");
  dev = done.body.results.id;
});
afterAll(async () => {
  await h?.close();
});

describe("Stream objects in a development branch", () => {
  it("are refused at preview with the service's words, writing nothing", async () => {
    const before = h.writes().length;
    const reason = new RegExp(`branch ${dev} is a development branch, and the Stream service serves only the default branch \\(it answers "Currently only default branch is supported, branch "${dev}" is not default\\."; keboola/keboola-as-code internal/pkg/service/stream/dependencies/reqbranch.go\\): keep Stream sources, sinks and their settings in the default branch`);
    const src = await source.check(h.ctx, {}, { __resourceName: "s", name: "Events", branchId: String(dev) });
    expect(src.failures).toEqual([{ property: "branchId", reason: expect.stringMatching(reason) }]);
    const snk = await sink.check(h.ctx, {}, { __resourceName: "k", sourceId: "events", name: "Raw", branchId: String(dev), tableId: "in.c-x.raw", columns: [{ type: "body", name: "body" }] });
    expect(snk.failures).toEqual([{ property: "branchId", reason: expect.stringMatching(reason) }]);
    const set = await sourceSettings.check(h.ctx, {}, { __resourceName: "t", sourceId: "events", branchId: String(dev), stagingUploadTrigger: { count: 10 } });
    expect(set.failures).toEqual([{ property: "branchId", reason: expect.stringMatching(reason) }]);
    expect(h.writes().length).toBe(before);
  });

  it("accept the default branch by its numeric id", async () => {
    const src = await source.check(h.ctx, {}, { __resourceName: "s2", name: "Events two", branchId: "101" });
    expect(src.failures).toEqual([]);
  });
});
