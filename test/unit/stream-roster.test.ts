import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { KeboolaApiError } from "../../provider/api/errors";
import type { HttpClient, HttpRequest } from "../../provider/api/http";
import { StreamApi, type StreamTask } from "../../provider/api/stream";

// StreamApi's roster of a source's sinks against a scripted HTTP layer whose answers the test
// releases in any order: a listing overlapped by a write of this process is never kept.

interface Pending {
  req: HttpRequest;
  answer(body: unknown): void;
  fail(err: Error): void;
}

function scripted() {
  const pending: Pending[] = [];
  const http = {
    request: (req: HttpRequest) =>
      new Promise((resolve, reject) => pending.push({ req, answer: (body) => resolve({ status: 200, body, headers: {} }), fail: reject })),
  } as unknown as HttpClient;
  const next = async (method: string, path: RegExp): Promise<Pending> => {
    for (let i = 0; i < 100; i++) {
      const at = pending.findIndex((p) => p.req.method === method && path.test(p.req.path));
      if (at >= 0) return pending.splice(at, 1)[0];
      await vi.advanceTimersByTimeAsync(10); // fake timers: lets the task polls come
    }
    throw new Error(`no ${method} ${path} was sent`);
  };
  return { api: new StreamApi(http, "http://stream", 10), next };
}

const task = (taskId: string, finished = false): StreamTask => ({ taskId, type: "api.create.sink", url: "", status: finished ? "success" : "processing", isFinished: finished, createdAt: "" });
const body = { sinkId: "mine", type: "table", description: "d" };

describe("StreamApi.sinkRoster", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("keeps a listing and adds the sinks this process creates afterwards", async () => {
    const { api, next } = scripted();
    const first = api.sinkRoster("default", "src");
    (await next("GET", /\/sinks$/)).answer({ sinks: [{ sinkId: "theirs", description: "x" }], page: { totalCount: 1 } });
    expect((await first)?.sinks.map((s) => s.sinkId)).toEqual(["theirs"]);
    const created = api.createSink("default", "src", body);
    (await next("POST", /\/sinks$/)).answer(task("t1"));
    await created;
    expect((await api.sinkRoster("default", "src"))?.sinks.map((s) => s.sinkId)).toEqual(["theirs", "mine"]);
  });

  it("does not keep a listing answered after a create of this process was accepted meanwhile", async () => {
    const { api, next } = scripted();
    const listing = api.sinkRoster("default", "src");
    const list = await next("GET", /\/sinks$/);
    const created = api.createSink("default", "src", body);
    (await next("POST", /\/sinks$/)).answer(task("t1"));
    await created;
    // The service computed this listing before the create: it lacks "mine".
    list.answer({ sinks: [], page: { totalCount: 0 } });
    await listing;
    const again = api.sinkRoster("default", "src");
    (await next("GET", /\/sinks$/)).answer({ sinks: [{ sinkId: "mine", description: "d" }], page: { totalCount: 1 } });
    expect((await again)?.sinks.map((s) => s.sinkId)).toEqual(["mine"]);
  });

  it("drops the roster when a create fails, and when another write's task ends", async () => {
    const { api, next } = scripted();
    const fill = async () => {
      const r = api.sinkRoster("default", "src");
      (await next("GET", /\/sinks$/)).answer({ sinks: [], page: { totalCount: 0 } });
      return r;
    };
    await fill();
    const failing = api.createSink("default", "src", body);
    (await next("POST", /\/sinks$/)).fail(new KeboolaApiError(502, undefined, "Bad Gateway", { service: "stream", method: "POST", path: "/sinks" }));
    await expect(failing).rejects.toThrow(/502/);
    // A listing is needed again (the GET below is answered only if it is sent).
    await fill();

    const update = api.updateSink("default", "src", "theirs", { name: "n" });
    (await next("PATCH", /\/sinks\/theirs$/)).answer(task("t2"));
    const waiting = api.runTask(await update, "update");
    await fill(); // listed while the update's task runs: kept for now
    (await next("GET", /\/tasks\/t2$/)).answer(task("t2", true));
    await waiting;
    await fill(); // the task ended: listed again
  });

  it("knows the sinks it created once their create task succeeded, until it writes their settings", async () => {
    const { api, next } = scripted();
    const created = api.createSink("default", "src", body);
    (await next("POST", /\/sinks$/)).answer(task("t1"));
    const waiting = api.runTask(await created, "create");
    expect(api.createdHere("default", "src", "mine")).toBe(false);
    (await next("GET", /\/tasks\/t1$/)).answer(task("t1", true));
    await waiting;
    expect(api.createdHere("default", "src", "mine")).toBe(true);
    expect(api.createdHere("default", "src")).toBe(false);
    const patched = api.patchSettings("default", "src", "mine", []);
    (await next("PATCH", /\/sinks\/mine\/settings$/)).answer(task("t4"));
    await patched;
    expect(api.createdHere("default", "src", "mine")).toBe(false);
  });

  it("forgets a created sink when it is deleted", async () => {
    const { api, next } = scripted();
    const created = api.createSink("default", "src", body);
    (await next("POST", /\/sinks$/)).answer(task("t1"));
    const waiting = api.runTask(await created, "create");
    (await next("GET", /\/tasks\/t1$/)).answer(task("t1", true));
    await waiting;
    const deleted = api.deleteSink("default", "src", "mine");
    (await next("DELETE", /\/sinks\/mine$/)).answer(task("t3"));
    await deleted;
    expect(api.createdHere("default", "src", "mine")).toBe(false);
  });
});
