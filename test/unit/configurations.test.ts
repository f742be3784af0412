import { afterEach, describe, expect, it, vi } from "vitest";
import type { Configuration, StorageApi } from "../../provider/api/storage";
import { KeboolaApiError, KeboolaNetworkError } from "../../provider/api/errors";
import {
  addressedConfig,
  assertCanPurge,
  configIdReplaces,
  convergeWholeConfig,
  createRowOnce,
  deleteConfiguration,
  normalizeConfig,
  normalizeRow,
  parseConfigResourceId,
  takesOverBranchCopy,
} from "../../provider/lifecycle/configurations";

// The rules every configuration kind shares (provider/lifecycle/configurations.ts), on a stand-in
// Storage that records each call: delete's read-before-delete, the purge, ids and normalization.

const request = { service: "storage" as const, method: "DELETE", path: "/v2/storage/components/c/configs/1" };
const status = (code: number, message = "failed") => new KeboolaApiError(code, undefined, message, request);
const lost = () => new KeboolaNetworkError(request, "socket hang up", true);

/** One configuration in a stand-in Storage: live, in the trash or gone; each DELETE moves it one step, or throws what `faults` says. */
function storageWith(start: "live" | "trash" | "gone", faults: Array<{ error: Error; applied: boolean }> = []) {
  let where = start;
  const calls: string[] = [];
  const storage = {
    async findConfig() {
      calls.push("find");
      return where === "gone" ? undefined : ({ id: "1", name: "c", isDeleted: where === "trash", configuration: {} } as unknown as Configuration);
    },
    async listDeletedConfigs() {
      calls.push("trash");
      return where === "trash" ? [{ id: 1 }] : [];
    },
    async deleteConfig(_b: string, _c: string, _id: string, changeDescription?: string) {
      calls.push(`delete${changeDescription ? `(${changeDescription})` : ""}`);
      const fault = faults.shift();
      if (fault?.applied || !fault) where = where === "live" ? "trash" : "gone";
      if (fault) throw fault.error;
    },
  };
  return { storage: storage as unknown as StorageApi, calls, where: () => where };
}

/** `n` answers of `error` to DELETE that did nothing (the outcome an ambiguous failure leaves open). */
const unapplied = (n: number, error: () => Error) => Array.from({ length: n }, () => ({ error: error(), applied: false }));
/** How many DELETEs (without a change description) the stand-in received. */
const deletes = (s: { calls: string[] }) => s.calls.filter((c) => c === "delete").length;

describe("deleteConfiguration", () => {
  afterEach(() => vi.restoreAllMocks());

  it("moves a live configuration to the trash and leaves it there without purge", async () => {
    const s = storageWith("live");
    await deleteConfiguration(s.storage, "default", "c", "1", false, "Deleted by Pulumi");
    expect(s.where()).toBe("trash");
    expect(s.calls).toEqual(["find", "delete(Deleted by Pulumi)"]);
  });

  it("never deletes a configuration already in the trash again unless purge asks (a second DELETE purges)", async () => {
    const s = storageWith("trash");
    await deleteConfiguration(s.storage, "default", "c", "1", false);
    expect(s.calls).toEqual(["find"]);
    expect(s.where()).toBe("trash");
  });

  it("purges: to the trash, then out of it once the trash is read", async () => {
    const s = storageWith("live");
    await deleteConfiguration(s.storage, "default", "c", "1", true, "d");
    expect(s.where()).toBe("gone");
    expect(s.calls).toEqual(["find", "delete(d)", "trash", "delete"]);
  });

  it("settles a lost answer by reading again, not by deleting blindly", async () => {
    const s = storageWith("live", [{ error: lost(), applied: true }]);
    await deleteConfiguration(s.storage, "default", "c", "1", false);
    expect(s.where()).toBe("trash");
    expect(deletes(s)).toBe(1);
  });

  it("tries an ambiguous delete that did nothing again, four times at most", async () => {
    const s = storageWith("live", unapplied(3, () => status(503)));
    await deleteConfiguration(s.storage, "default", "c", "1", false);
    expect(s.where()).toBe("trash");
    expect(deletes(s)).toBe(4);

    const stuck = storageWith("live", unapplied(4, () => status(503, "down")));
    await expect(deleteConfiguration(stuck.storage, "default", "c", "1", false)).rejects.toThrow("failed with 503: down");
    expect(deletes(stuck)).toBe(4);
  });

  it("fails at once on a refusal, and counts a 404 as deleted", async () => {
    const refused = storageWith("live", [{ error: status(403, "no"), applied: false }]);
    await expect(deleteConfiguration(refused.storage, "default", "c", "1", false)).rejects.toThrow("failed with 403: no");
    expect(deletes(refused)).toBe(1);

    const gone = storageWith("live", [{ error: status(404), applied: false }]);
    await expect(deleteConfiguration(gone.storage, "default", "c", "1", false)).resolves.toBeUndefined();
    expect(gone.calls).toEqual(["find", "delete"]);
  });

  it("retries an ambiguous purge four times at most, and counts a 404 as purged", async () => {
    const flaky = storageWith("trash", unapplied(3, () => status(502)));
    await deleteConfiguration(flaky.storage, "default", "c", "1", true);
    expect(flaky.where()).toBe("gone");
    expect(deletes(flaky)).toBe(4);

    const stuck = storageWith("trash", unapplied(4, () => status(502, "bad gateway")));
    await expect(deleteConfiguration(stuck.storage, "default", "c", "1", true)).rejects.toThrow("bad gateway");
    expect(deletes(stuck)).toBe(4);

    const gone = storageWith("trash", [{ error: status(404), applied: false }]);
    await deleteConfiguration(gone.storage, "default", "c", "1", true);
    expect(deletes(gone)).toBe(1);
  });

  it("warns, and does not fail, when a development branch refuses to purge (400); production's 400 fails", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const dev = storageWith("trash", [{ error: status(400, "Purge is not allowed in a development branch."), applied: false }]);
    await deleteConfiguration(dev.storage, "123", "c", "1", true);
    expect(warn.mock.calls).toEqual([
      ["warning: configuration c/1 was moved to the trash of branch 123; it cannot be purged there: Purge is not allowed in a development branch."],
    ]);

    const prod = storageWith("trash", [{ error: status(400, "nope"), applied: false }]);
    await expect(deleteConfiguration(prod.storage, "default", "c", "1", true)).rejects.toThrow("failed with 400: nope");
    expect(warn).toHaveBeenCalledTimes(1);
  });
});

describe("configuration ids", () => {
  it("parses <branch>/<component>/<config>, the config id keeping its slashes", () => {
    expect(parseConfigResourceId("default/keboola.ex-http/123")).toEqual({ branch: "default", componentId: "keboola.ex-http", configId: "123" });
    expect(parseConfigResourceId("5/c/a/b")).toEqual({ branch: "5", componentId: "c", configId: "a/b" });
    for (const bad of ["c/123", "/c/1", "b//1", "b/c/"]) expect(parseConfigResourceId(bad), bad).toBeUndefined();
  });

  it("addresses what state records first, then the id, then the default branch", () => {
    expect(addressedConfig("7/c/1", { branchId: "9", componentId: "d", configId: "2" })).toEqual({ branch: "9", componentId: "d", configId: "2" });
    expect(addressedConfig("7/c/1", {})).toEqual({ branch: "7", componentId: "c", configId: "1" });
    expect(addressedConfig("not-an-id", {})).toEqual({ branch: "default", componentId: undefined, configId: undefined });
  });

  it("replaces only when an explicit, non-empty configId changes", () => {
    expect(configIdReplaces({ configId: "a" }, { configId: "b" })).toBe(true);
    expect(configIdReplaces({ configId: "a" }, { configId: "a" })).toBe(false);
    expect(configIdReplaces({ configId: "a" }, { configId: "" })).toBe(false);
    expect(configIdReplaces({ configId: "a" }, {})).toBe(false);
  });

  it("takes over a branch copy in a branch of the program, or when adoptExisting says so", () => {
    expect(takesOverBranchCopy({ branch: "dev" } as never, false)).toBe(true);
    expect(takesOverBranchCopy({} as never, true)).toBe(true);
    expect(takesOverBranchCopy({} as never, false)).toBe(false);
  });
});

describe("normalizeConfig", () => {
  it("reads PHP's [] as an empty map, null texts as empty, flags as booleans and row ids as strings", () => {
    const raw = {
      id: "1",
      name: "c",
      description: null,
      configuration: [],
      isDisabled: null,
      rows: [{ id: 12, name: null, description: null, configuration: [], isDisabled: 1 }],
      rowsSortOrder: [12, "13"],
    } as unknown as Configuration;
    const c = normalizeConfig(raw);
    expect(c).toMatchObject({ description: "", configuration: {}, isDisabled: false, rowsSortOrder: ["12", "13"] });
    expect(c.rows).toEqual([{ id: "12", name: "", description: "", configuration: {}, isDisabled: false }]);
    expect(normalizeConfig({ id: "1", name: "c", configuration: { a: 1 }, isDisabled: true } as unknown as Configuration)).toMatchObject({
      configuration: { a: 1 },
      isDisabled: true,
      rows: [],
      rowsSortOrder: [],
    });
    expect(normalizeRow({ id: "3", name: "r", description: "d", configuration: { x: 1 }, isDisabled: true } as never)).toEqual({
      id: "3",
      name: "r",
      description: "d",
      configuration: { x: 1 },
      isDisabled: true,
    });
  });
});

describe("assertCanPurge", () => {
  const token = (t: object) => ({ id: "9", description: "ci", isMasterToken: false, ...t }) as never;
  it("follows canPurgeTrash when the token says it, else whether it is a master token", () => {
    expect(() => assertCanPurge(token({ isMasterToken: true }), "X")).not.toThrow();
    expect(() => assertCanPurge(token({ canPurgeTrash: true }), "X")).not.toThrow();
    expect(() => assertCanPurge(token({ isMasterToken: true, canPurgeTrash: false }), "X")).toThrow(
      'X: purgeOnDelete is set, but the token "ci" (id 9) may not purge the trash (canPurgeTrash is false). Nothing was changed. ' +
        "Use a token with canPurgeTrash, or set purgeOnDelete: false (delete then moves the configuration to the trash).",
    );
  });
});

describe("convergeWholeConfig", () => {
  const current = { id: "1", name: "n", description: "d", configuration: { a: 1 }, isDisabled: false, rows: [], rowsSortOrder: [] } as unknown as Configuration;
  function storage() {
    const updates: unknown[] = [];
    const api = {
      async updateConfig(_b: string, _c: string, _id: string, body: unknown) {
        updates.push(body);
      },
      async getConfig() {
        return { ...current, name: "after", configuration: [] };
      },
    };
    return { api: api as unknown as StorageApi, updates };
  }

  it("writes nothing when nothing differs (isDisabled unset means: leave it)", async () => {
    const s = storage();
    const r = await convergeWholeConfig(s.api, { branch: "default", componentId: "c", configId: "1" }, { ...current, isDisabled: true }, { name: "n", description: "d", configuration: { a: 1 } }, "cd");
    expect(r).toEqual({ config: { ...current, isDisabled: true }, written: false });
    expect(s.updates).toEqual([]);
  });

  it("sends only what differs, with the change description, and reads the result back normalized", async () => {
    const s = storage();
    const at = { branch: "default", componentId: "c", configId: "1" };
    const r = await convergeWholeConfig(s.api, at, current, { name: "n", description: "e", configuration: { a: 1 }, isDisabled: true }, "cd");
    expect(s.updates).toEqual([{ description: "e", isDisabled: true, changeDescription: "cd" }]);
    expect(r.written).toBe(true);
    expect(r.config).toMatchObject({ name: "after", configuration: {} });
    await convergeWholeConfig(s.api, at, current, { name: "m", description: "d", configuration: { a: 2 } }, "cd");
    expect(s.updates[1]).toEqual({ name: "m", configuration: { a: 2 }, changeDescription: "cd" });
  });
});

describe("createRowOnce", () => {
  const where = { branch: "default", componentId: "c", configId: "1" };
  function storage(rows: Array<{ id: string; name: string }>, createError?: Error) {
    let creates = 0;
    const api = {
      async findConfig() {
        return { id: "1", name: "c", configuration: {}, rows } as unknown as Configuration;
      },
      async createRow(_b: string, _c: string, _id: string, body: { rowId?: string; name: string }) {
        creates++;
        if (createError) throw createError;
        return { id: body.rowId ?? 77 };
      },
    };
    return { api: api as unknown as StorageApi, creates: () => creates };
  }

  it("answers the id Storage gave, as a string", async () => {
    const s = storage([]);
    expect(await createRowOnce(s.api, where, { name: "r" }, new Set())).toBe("77");
    expect(s.creates()).toBe(1);
  });

  it("takes a row of the given id that exists ('already exists'), and refuses a 4xx that says something else", async () => {
    const exists = storage([{ id: "r1", name: "other" }], new KeboolaApiError(400, undefined, "Row r1 already Exists", request));
    expect(await createRowOnce(exists.api, where, { rowId: "r1", name: "r" }, new Set())).toBe("r1");

    const refused = storage([{ id: "r1", name: "other" }], new KeboolaApiError(400, undefined, "Invalid name", request));
    await expect(createRowOnce(refused.api, where, { rowId: "r1", name: "r" }, new Set())).rejects.toThrow("Invalid name");
  });

  it("after a lost answer, takes the row of its name that no other declared row claimed", async () => {
    const s = storage([{ id: "5", name: "r" }, { id: "6", name: "r" }], lost());
    expect(await createRowOnce(s.api, where, { name: "r" }, new Set(["5"]))).toBe("6");
    expect(s.creates()).toBe(1);
  });
});
