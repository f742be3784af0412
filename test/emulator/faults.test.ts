// Fault injection: every injected fault is recorded by kind in the request log, and a lost
// response applies the write before the connection is dropped.
import { afterEach, describe, expect, it } from "vitest";
import { parseCommandLine } from "../../emulator/cli-options";
import { countFaults, decideFault, type FaultKind, type FaultOptions } from "../../emulator/core/faults";
import { seededRandom } from "../../emulator/core/random";
import { startEmulator, type Emulator } from "../../emulator/server";
import { call, pollUntil } from "./helpers";

const CONFIGS = "/v2/storage/branch/default/components/keboola.ex-generic-v2/configs";

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

/** What the client saw: an HTTP status, or a network error (no answer at all). */
async function outcome(url: string, init: RequestInit): Promise<number | "network"> {
  try {
    const res = await fetch(url, init);
    await res.arrayBuffer();
    return res.status;
  } catch (e) {
    // undici reports a dropped connection as `TypeError: fetch failed` with the socket error as cause.
    expect((e as Error).message).toBe("fetch failed");
    return "network";
  }
}

const createConfig = (on: Emulator, id: string) =>
  outcome(on.url + CONFIGS, {
    method: "POST",
    headers: { "X-StorageApi-Token": "master", "Content-Type": "application/json" },
    body: JSON.stringify({ name: `Config ${id}`, configurationId: id }),
  });

describe("lost response", () => {
  it("applies the write, saves it and drops the answer", async () => {
    emu = await startEmulator({ token: "master", faults: { rateLostResponse: 1, methods: ["POST"] } });
    expect(await createConfig(emu, "lost-1")).toBe("network");

    // Reads are not faulted (methods: POST only): the configuration exists.
    const got = await call(emu.url, "GET", `${CONFIGS}/lost-1`, { token: "master" });
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ id: "lost-1", name: "Config lost-1", version: 1 });

    const post = emu.requests().find((r) => r.method === "POST");
    expect(post).toMatchObject({ path: CONFIGS, status: 0, droppedStatus: 201, fault: "lost" });
    expect(emu.requests().find((r) => r.method === "GET")?.fault).toBeUndefined();

    // Retrying blindly would hit the existing id.
    emu.setFaults({});
    expect(await createConfig(emu, "lost-1")).toBe(400);
  });

  it("refuses bad fault options at run time and keeps the ones set", async () => {
    emu = await startEmulator({ token: "master", faults: { rate5xx: 1, pathPrefixes: ["/v2/storage/tokens"] } });
    const put = await call(emu.url, "PUT", "/_emulator/faults", { json: { rate5xx: 2, methods: "GET" } });
    expect(put.status).toBe(400);
    expect(put.body).toEqual({
      error: "fault options: rate5xx: Too big: expected number to be <=1; methods: Invalid input: expected array, received string",
    });
    expect((await call(emu.url, "GET", "/v2/storage/tokens/verify", { token: "master" })).status).toBeGreaterThanOrEqual(500);
  });

  it("is set at run time through PUT /_emulator/faults and completes stream tasks", async () => {
    emu = await startEmulator({ token: "master", taskDurationMs: 1 });
    const faults: FaultOptions = { seed: 5, rateLostResponse: 1, pathPrefixes: ["/stream/"], methods: ["POST"] };
    const put = await call(emu.url, "PUT", "/_emulator/faults", { json: faults });
    expect(put.body).toEqual(faults);

    const created = await outcome(`${emu.urls.stream}/v1/branches/default/sources`, {
      method: "POST",
      headers: { "X-StorageApi-Token": "master", "Content-Type": "application/json" },
      body: JSON.stringify({ name: "Lost Source", type: "http" }),
    });
    expect(created).toBe("network");
    // The 202 task was started although its answer never arrived; the source appears when it ends.
    const source = await pollUntil(
      () => call(emu!.urls.stream, "GET", "/v1/branches/default/sources/lost-source", { token: "master" }),
      (r) => r.status !== 404,
    );
    expect(source.status).toBe(200);
    const log = (await call(emu.url, "GET", "/_emulator/requests")).body as Array<{ method: string; fault?: FaultKind; droppedStatus?: number }>;
    expect(log.filter((r) => r.fault === "lost")).toEqual([expect.objectContaining({ method: "POST", droppedStatus: 202 })]);
  });
});

describe("fault accounting", () => {
  it("records each injected fault by kind, as the seed decides, and the client sees each one", async () => {
    const faults: FaultOptions = { seed: 42, rate429: 0.15, rate5xx: 0.15, rateReset: 0.15, rateLostResponse: 0.15, retryAfterSeconds: 0 };
    emu = await startEmulator({ token: "master", faults });
    const n = 80;
    const seen: Array<number | "network"> = [];
    for (let i = 0; i < n; i++) seen.push(await createConfig(emu, `cfg-${i}`));
    emu.setFaults({});

    // The same seed replayed decides the same faults, one draw sequence per request.
    const rng = seededRandom(faults.seed!);
    const expected: Array<FaultKind | undefined> = [];
    for (let i = 0; i < n; i++) {
      const d = decideFault(faults, rng, "POST", CONFIGS);
      expected.push(d.kind === "none" ? undefined : d.kind);
    }
    const posts = emu.requests().filter((r) => r.method === "POST");
    expect(posts.map((r) => r.fault)).toEqual(expected);

    const counts = emu.faultCounts();
    for (const kind of ["429", "5xx", "reset", "lost"] as const) {
      expect(counts[kind], kind).toBe(expected.filter((k) => k === kind).length);
      expect(counts[kind], kind).toBeGreaterThan(0);
    }
    expect(counts.byMethod.POST).toEqual({ "429": counts["429"], "5xx": counts["5xx"], reset: counts.reset, lost: counts.lost });
    expect(countFaults((await call(emu.url, "GET", "/_emulator/requests")).body)).toEqual(counts);

    // What the client saw matches, request by request; resets never reach the handler, lost
    // answers were applied.
    const listed = await call(emu.url, "GET", CONFIGS, { token: "master" });
    const ids = new Set((listed.body as Array<{ id: string }>).map((c) => c.id));
    seen.forEach((status, i) => {
      const kind = expected[i];
      if (kind === "429") expect(status).toBe(429);
      else if (kind === "5xx") expect([500, 502, 503]).toContain(status);
      else if (kind === "reset" || kind === "lost") expect(status).toBe("network");
      else expect(status).toBe(201);
      expect(ids.has(`cfg-${i}`), `cfg-${i} (${kind ?? "no fault"})`).toBe(kind === undefined || kind === "lost");
    });
  });

  it("draws the older faults exactly as before when no lost responses are asked for", () => {
    const before: FaultOptions = { seed: 9, rate429: 0.2, rate5xx: 0.2, rateReset: 0.2 };
    const a = seededRandom(9);
    const b = seededRandom(9);
    for (let i = 0; i < 200; i++) {
      expect(decideFault({ ...before, rateLostResponse: 0 }, a, "GET", "/")).toEqual(decideFault(before, b, "GET", "/"));
    }
  });
});

describe("command line", () => {
  it("maps --fault-lost-response to rateLostResponse next to the other faults", () => {
    const parsed = parseCommandLine(["--token", "t", "--fault-seed", "3", "--fault-reset", "0.05", "--fault-lost-response", "0.05"]);
    expect(parsed).toMatchObject({ kind: "options", options: { token: "t", faults: { seed: 3, rateReset: 0.05, rateLostResponse: 0.05 } } });
  });

  it("refuses a share that is not between 0 and 1, naming the flag", () => {
    expect(parseCommandLine(["--token", "t", "--fault-lost-response", "5%"])).toEqual({
      kind: "error",
      message: '--fault-lost-response must be a share between 0 and 1 (e.g. 0.05), got "5%"',
    });
    expect(parseCommandLine(["--fault-429", "0.1"], { KBC_TOKEN: "from-env" })).toMatchObject({ kind: "options", options: { token: "from-env" } });
    expect(parseCommandLine([])).toEqual({ kind: "error", message: "--token <master-token> is required (or set KBC_TOKEN)" });
  });
});
