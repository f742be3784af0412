import { describe, expect, it } from "vitest";
import { ConfigurationError, resolveSettings } from "../../provider/config";
import { waitUntilFinished } from "../../provider/api/tasks";
import { KeboolaTaskError, KeboolaTimeoutError } from "../../provider/api/errors";

const config = (values: Record<string, string>) => ({ get: (k: string) => values[k] });

describe("resolveSettings", () => {
  it("prefers stack config and falls back to the Terraform provider's variables", () => {
    const env = { KBC_HOST: "connection.env.keboola.com" };
    expect(resolveSettings(config({ "keboola:host": "https://connection.cfg.keboola.com/", "keboola:token": "cfg-token" }), env)).toMatchObject({
      host: "https://connection.cfg.keboola.com",
      token: "cfg-token",
    });
    expect(resolveSettings(config({}), { ...env, KBC_TOKEN: "env-token" })).toMatchObject({
      host: "https://connection.env.keboola.com",
      token: "env-token",
      taskTimeoutSeconds: 600,
      http: { requestTimeoutMs: 30_000 },
    });
  });

  it("keeps a configured keboola:token over KBC_TOKEN, which counts only where none is configured", () => {
    const stored = config({ "keboola:host": "h", "keboola:token": "cfg-token" });
    expect(resolveSettings(stored, { KBC_TOKEN: "env-token" }).token).toBe("cfg-token");
    expect(resolveSettings(config({ "keboola:host": "h", "keboola:token": "" }), { KBC_TOKEN: "env-token" }).token).toBe("env-token");
  });

  it("bounds every request by keboola:requestTimeout", () => {
    const s = resolveSettings(config({ "keboola:host": "h", "keboola:token": "t", "keboola:requestTimeout": "5" }), {});
    expect(s.http).toEqual({ requestTimeoutMs: 5000 });
    expect(() => resolveSettings(config({ "keboola:host": "h", "keboola:token": "t" }), { KBC_REQUEST_TIMEOUT: "0" })).toThrow(/requestTimeout must be a positive number/);
  });

  it("says which setting is missing and how to set it, without echoing values", () => {
    expect(() => resolveSettings(config({}), {})).toThrow(/keboola:host .* or set KBC_HOST/);
    expect(() => resolveSettings(config({ "keboola:host": "h" }), {})).toThrow(ConfigurationError);
    expect(() => resolveSettings(config({ "keboola:host": "h" }), {})).toThrow(/--secret keboola:token .* or set KBC_TOKEN/);
    expect(() => resolveSettings(config({ "keboola:host": "h", "keboola:token": "t", "keboola:taskTimeout": "soon" }), {})).toThrow(/taskTimeout must be a positive number/);
  });

  it("takes service URL overrides and the task deadline", () => {
    const s = resolveSettings(config({ "keboola:host": "h", "keboola:token": "t", "keboola:streamUrl": "stream.x", "keboola:taskTimeout": "30" }), { KBC_QUEUE_URL: "http://q" });
    expect(s).toMatchObject({ streamUrl: "https://stream.x", queueUrl: "http://q", taskTimeoutSeconds: 30 });
  });
});

describe("waitUntilFinished", () => {
  type T = { id: string; polls: number; done: boolean; ok: boolean };
  const pollable = (t: T) => ({ id: t.id, finished: t.done, ok: t.ok, message: "Unknown error" });

  it("polls until finished and returns the finished value", async () => {
    const result = await waitUntilFinished<T>(
      { id: "t1", polls: 0, done: false, ok: true },
      pollable,
      async (t) => ({ ...t, polls: t.polls + 1, done: t.polls + 1 >= 3 }),
      { what: "Sink \"a/b\"", deadlineSeconds: 10, firstPollMs: 1, maxPollMs: 2 },
    );
    expect(result.polls).toBe(3);
  });

  it("turns a failed task into an error naming the object and carrying the task's message", async () => {
    await expect(
      waitUntilFinished<T>({ id: "t2", polls: 0, done: true, ok: false }, pollable, async (t) => t, { what: 'Sink "a/b" (resource "b")', deadlineSeconds: 1 }),
    ).rejects.toThrow(new KeboolaTaskError("t2", "Unknown error", 'Sink "a/b" (resource "b")'));
  });

  it("stops at its own deadline with a hint how to raise it", async () => {
    const err = await waitUntilFinished<T>({ id: "t3", polls: 0, done: false, ok: true }, pollable, async (t) => t, {
      what: "Source \"s\"",
      deadlineSeconds: 0.05,
      firstPollMs: 5,
      maxPollMs: 10,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KeboolaTimeoutError);
    expect(String((err as Error).message)).toMatch(/did not finish within 0.05s \(raise keboola:taskTimeout or KBC_TASK_TIMEOUT\)/);
  });
});
