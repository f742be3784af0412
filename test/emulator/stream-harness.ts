import { afterAll, beforeAll, expect } from "vitest";
import { startEmulator, type Emulator } from "../../emulator/server";
import { call, pollUntil, type CallOptions } from "./helpers";

/**
 * One emulator for a Stream test file (started before its tests, closed after), with the calls
 * every such file makes: `api` to the Stream service with the master token, and `task` to start a
 * task (202) and wait until it has finished successfully.
 */
export function useStreamEmulator() {
  let em: Emulator | undefined;
  beforeAll(async () => {
    em = await startEmulator({ token: "master", taskDurationMs: 10 });
  });
  afterAll(async () => {
    await em?.close();
  });
  const emulator = (): Emulator => {
    if (!em) throw new Error("the Stream test emulator is not started yet (use it inside a test)");
    return em;
  };
  const api = (method: string, path: string, opts: CallOptions = {}) => call(emulator().urls.stream, method, path, { token: "master", ...opts });
  /** Starts a task (202) and waits until it finishes successfully; returns the finished task. */
  async function task(method: string, path: string, json?: unknown): Promise<any> {
    const res = await api(method, path, json === undefined ? {} : { json });
    expect(res.status, res.text).toBe(202);
    const done = await pollUntil(
      () => call(res.body.url, "GET", "", { token: "master" }),
      (r) => r.status !== 200 || r.body.isFinished === true,
    );
    expect(done.body.status, done.text).toBe("success");
    return done.body;
  }
  return { emulator, api, task };
}
