import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startEmulator, type Emulator } from "../../emulator/server";
import { call } from "./helpers";
import { getText, putFile } from "./s3-helpers";

// A restart from a state file keeps the sources and never hands out a secret twice.

async function createSource(emu: Emulator, name: string): Promise<string> {
  const headers = { "X-StorageApi-Token": "master", "Content-Type": "application/json" };
  const res = await fetch(`${emu.urls.stream}/v1/branches/default/sources`, { method: "POST", headers, body: JSON.stringify({ name, type: "http" }) });
  expect(res.status).toBe(202);
  let task = (await res.json()) as { url: string; isFinished: boolean; outputs?: { url: string } };
  while (!task.isFinished) task = (await (await fetch(task.url, { headers })).json()) as typeof task;
  const source = (await (await fetch(task.outputs!.url, { headers })).json()) as { http: { url: string } };
  return source.http.url.split("/").pop()!;
}

describe("emulator state file", () => {
  it("keeps sources across a restart and generates new secrets after it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "emu-state-"));
    try {
      const stateFile = join(dir, "state.json");
      const first = await startEmulator({ token: "master", taskDurationMs: 5, stateFile });
      const before = await createSource(first, "Before Restart");
      await first.close();

      const second = await startEmulator({ token: "master", taskDurationMs: 5, stateFile });
      const list = (await (await fetch(`${second.urls.stream}/v1/branches/default/sources`, { headers: { "X-StorageApi-Token": "master" } })).json()) as {
        sources: Array<{ sourceId: string }>;
      };
      expect(list.sources.map((s) => s.sourceId)).toEqual(["before-restart"]);
      const after = await createSource(second, "After Restart");
      await second.close();
      expect(after).not.toBe(before);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("emulator state file after reads only", () => {
  it("saves a task that completes while only reads are served: the sink token survives a restart", async () => {
    const dir = mkdtempSync(join(tmpdir(), "emu-state-"));
    try {
      const stateFile = join(dir, "state.json");
      const first = await startEmulator({ token: "master", taskDurationMs: 5, stateFile });
      const headers = { "X-StorageApi-Token": "master", "Content-Type": "application/json" };
      await createSource(first, "Tokens");
      const sink = { name: "Raw", type: "table", table: { type: "keboola", tableId: "in.c-tokens.raw", mapping: { columns: [{ type: "body", name: "body" }] } } };
      const res = await fetch(`${first.urls.stream}/v1/branches/default/sources/tokens/sinks`, { method: "POST", headers, body: JSON.stringify(sink) });
      expect(res.status).toBe(202);
      // The last write only started the task; it completes during one of these reads.
      let task = (await res.json()) as { url: string; isFinished: boolean; status: string };
      while (!task.isFinished) task = (await (await fetch(task.url, { headers })).json()) as typeof task;
      expect(task.status).toBe("success");
      const token = first.state.stream.sinkTokens["101/tokens/raw"]?.token;
      expect(token).toMatch(/^4242-\d+-\w{40}$/);
      await first.close();

      const second = await startEmulator({ token: "master", taskDurationMs: 5, stateFile });
      try {
        // Any request settles what was left pending in the file; nothing may be.
        await fetch(`${second.urls.stream}/v1/branches/default/sources`, { headers });
        expect(second.state.deferred).toEqual([]);
        expect(second.state.stream.sinkTokens["101/tokens/raw"]?.token).toBe(token);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("keeps uploaded objects across a restart (bytes next to the state file) and their credentials", async () => {
    const dir = mkdtempSync(join(tmpdir(), "emu-state-"));
    try {
      const stateFile = join(dir, "state.json");
      const first = await startEmulator({ token: "master", taskDurationMs: 5, stateFile });
      const prep = await call(first.url, "POST", "/v2/storage/files/prepare", { token: "master", json: { name: "kept.csv", federationToken: true } });
      await putFile(prep.body, "a,b\n1,2\n");
      await first.close();
      expect(readFileSync(stateFile, "utf8")).not.toContain("a,b");
      expect(readdirSync(`${stateFile}.objects`)).toHaveLength(1);

      const second = await startEmulator({ token: "master", taskDurationMs: 5, stateFile });
      const detail = await call(second.url, "GET", `/v2/storage/files/${prep.body.id}?federationToken=1`, { token: "master" });
      expect(detail.body.s3Endpoint).toBe(second.urls.files);
      expect(await getText(detail.body, detail.body.s3Path.bucket, detail.body.s3Path.key)).toBe("a,b\n1,2\n");
      // The credentials issued before the restart still work (against the new address).
      expect(await getText({ ...prep.body, s3Endpoint: second.urls.files }, prep.body.uploadParams.bucket, prep.body.uploadParams.key)).toBe("a,b\n1,2\n");
      await second.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
