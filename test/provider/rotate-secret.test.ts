import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FaultOptions } from "../../emulator/core/faults";
import { source } from "./hosted";
import { createVia, startHarness, updateVia, type Harness } from "./harness";

// Source.rotateSecret: a new value rotates the ingestion secret in place, exactly once per change,
// also when the answer to the rotation is lost, and the old URL gets the service's refusal
// (keboola-as-code `internal/pkg/service/stream/api/service/source.go` RotateSourceSecret: synchronous,
// the old secret stops working at once).

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ taskDurationMs: 10 });
});
afterAll(async () => {
  await h?.close();
});

const ROTATE = (id: string) => `/stream/v1/branches/default/sources/${id}/rotate-secret`;

/** Rotations the emulator applied (answered, or processed with the answer lost). */
const applied = (id: string) => h.emu.requests().filter((r) => r.method === "POST" && r.path === ROTATE(id) && (r.status === 200 || r.droppedStatus === 200)).length;

/** What ingestion answers at a URL. */
async function post(url: string): Promise<{ status: number; body: string }> {
  const res = await fetch(url, { method: "POST", body: "{}", headers: { "Content-Type": "application/json" } });
  return { status: res.status, body: await res.text() };
}

describe("Source.rotateSecret", () => {
  it("rotates in place once per change; the url output changes and the old URL is refused", async () => {
    const src = await createVia(source, h.ctx, "rot", { name: "rot-src", rotateSecret: "1" });
    const url = src.outs.url as string;
    expect((await post(url)).status).toBe(200);

    // The same value again, or another change with it: no rotation.
    const same = await updateVia(source, h.ctx, "rot", src.id, src.outs, src.inputs, { name: "rot-src", rotateSecret: "1", description: "d" });
    expect(same.diff.changes).toBe(true);
    expect(same.outs.url).toBe(url);
    expect(applied("rot-src")).toBe(0);

    const rotated = await updateVia(source, h.ctx, "rot", src.id, same.outs, same.inputs, { name: "rot-src", rotateSecret: "2", description: "d" });
    expect(rotated.diff.replaces).toEqual([]);
    expect(rotated.diff.changes).toBe(true);
    expect(rotated.outs.rotateSecret).toBe("2");
    expect(rotated.outs.url).not.toBe(url);
    expect(applied("rot-src")).toBe(1);
    const refused = await post(url);
    expect(refused.status).toBe(404);
    expect(JSON.parse(refused.body)).toMatchObject({ error: "stream.in.noSourceFound" });
    expect((await post(rotated.outs.url as string)).status).toBe(200);

    // Unchanged afterwards: no diff, nothing written.
    const diff = await source.diff(h.ctx, src.id, rotated.outs, rotated.inputs);
    expect(diff.changes).toBe(false);
  });

  const FAULTS: Record<string, FaultOptions> = { lost: { rateLostResponse: 1 }, "5xx": { rate5xx: 1 }, reset: { rateReset: 1 } };
  it.each(Object.keys(FAULTS))("rotates exactly once under a %s on the rotation", async (kind) => {
    const id = `rot-${kind}`;
    const src = await createVia(source, h.ctx, id, { name: id, rotateSecret: "a" });
    h.emu.setFaults({ ...FAULTS[kind], limit: 1, methods: ["POST"], pathPrefixes: [ROTATE(id)] });
    let rotated;
    try {
      rotated = await updateVia(source, h.ctx, id, src.id, src.outs, src.inputs, { name: id, rotateSecret: "b" });
    } finally {
      h.emu.setFaults({});
    }
    const injected = h.emu.requests().filter((r) => r.path === ROTATE(id) && r.fault === kind);
    expect(injected, `one ${kind} injected`).toHaveLength(1);
    expect(applied(id)).toBe(1);
    const live = await (await h.ctx.client().stream()).getSource("default", id);
    expect(rotated.outs.url).toBe(live.http?.url);
    expect(rotated.outs.url).not.toBe(src.outs.url);
  });

  it("an interrupted run's rotation is not repeated: the URL recorded in state is gone already", async () => {
    const src = await createVia(source, h.ctx, "rot-crash", { name: "rot-crash", rotateSecret: "1" });
    // A run rotated and died before recording it: state still holds the old URL and trigger value.
    const stream = await h.ctx.client().stream();
    const rotatedByLostRun = await stream.rotateSourceSecret("default", "rot-crash");
    const next = await updateVia(source, h.ctx, "rot-crash", src.id, src.outs, src.inputs, { name: "rot-crash", rotateSecret: "2" });
    expect(applied("rot-crash")).toBe(1);
    expect(next.outs.url).toBe(rotatedByLostRun.http?.url);
  });

  it("rotates OTLP sources: url and secret outputs change together", async () => {
    const src = await createVia(source, h.ctx, "rot-otlp", { name: "rot-otlp", type: "otlp" });
    const rotated = await updateVia(source, h.ctx, "rot-otlp", src.id, src.outs, src.inputs, { name: "rot-otlp", type: "otlp", rotateSecret: "x" });
    expect(rotated.outs.secret).not.toBe(src.outs.secret);
    expect(rotated.outs.url).toBe(`${rotated.outs.baseUrl}/${rotated.outs.secret}`);
    expect(applied("rot-otlp")).toBe(1);
  });
});
