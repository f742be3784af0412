import { describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startEmulator, type Emulator } from "../../emulator/server";

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
