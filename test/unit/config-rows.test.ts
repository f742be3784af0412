import { describe, expect, it } from "vitest";
import type { ConfigRow, Configuration, StorageApi } from "../../provider/api/storage";
import { KeboolaApiError } from "../../provider/api/errors";
import { orderedRows, reconcileRows } from "../../provider/kinds/component-config/rows";
import { DEFAULT_CHANGE_DESCRIPTION } from "../../provider/lifecycle/configurations";

// reconcileRows (provider/lifecycle/config-rows.ts) on a stand-in Storage that records each write:
// which rows it deletes, creates and updates, with which change description, and whether it says
// it wrote anything (an update that wrote nothing reads nothing back). planRows, which decides the
// matching, has its own tests (test/unit/placeholders.test.ts).

const row = (id: string, name: string, configuration: Record<string, unknown> = {}): ConfigRow => ({ id, name, description: "", isDisabled: false, configuration }) as unknown as ConfigRow;
const declared = (name: string, configuration: Record<string, unknown> = {}) => ({ name, description: "", isDisabled: false, configuration });
const notFound = () => new KeboolaApiError(404, undefined, "Row not found", { service: "storage", method: "DELETE", path: "/rows/2" });
const refused = () => new KeboolaApiError(403, undefined, "forbidden", { service: "storage", method: "DELETE", path: "/rows/2" });

function standIn(deleteFails?: () => Error) {
  const calls: string[] = [];
  const storage = {
    async deleteRow(_b: string, _c: string, _cfg: string, id: string, changeDescription: string) {
      calls.push(`delete ${id} (${changeDescription})`);
      if (deleteFails) throw deleteFails();
    },
    async createRow(_b: string, _c: string, _cfg: string, body: { name: string; changeDescription: string }) {
      calls.push(`create ${body.name} (${body.changeDescription})`);
      return { id: 99 };
    },
    async updateRow(_b: string, _c: string, _cfg: string, id: string, body: { changeDescription: string }) {
      calls.push(`update ${id} (${body.changeDescription})`);
    },
  };
  return { storage: storage as unknown as StorageApi, calls };
}

const encrypt = async () => {
  throw new Error("no # value here: nothing to encrypt");
};
const current = (rows: ConfigRow[]) => ({ id: "cfg", rows, rowsSortOrder: [] }) as unknown as Configuration;
const recorded = (names: string[], ids: string[]) => ({ rows: names.map((name) => ({ name })), rowIds: ids, secrets: {} });
const parsed = (rows: Array<ReturnType<typeof declared>>, changeDescription?: string) =>
  ({ branchId: "default", componentId: "keboola.ex-generic-v2", rows, ...(changeDescription !== undefined ? { changeDescription } : {}) }) as never;

describe("reconcileRows", () => {
  it("writes nothing, and says so, when every declared row is as the configuration has it", async () => {
    const s = standIn();
    const out = await reconcileRows(s.storage, encrypt, parsed([declared("a", { x: 1 })]), "cfg", current([row("1", "a", { x: 1 })]), recorded(["a"], ["1"]));
    expect(out).toEqual({ rowIds: ["1"], wrote: false, secrets: { "1": {} } });
    expect(s.calls).toEqual([]);
  });

  it("deletes the rows no declared row matches and updates the changed ones; creates the new ones; each with the change description", async () => {
    const s = standIn();
    const out = await reconcileRows(s.storage, encrypt, parsed([declared("a", { x: 2 })], "ticket 12"), "cfg", current([row("1", "a", { x: 1 }), row("2", "b")]), recorded(["a", "b"], ["1", "2"]));
    expect(s.calls).toEqual(["delete 2 (ticket 12)", "update 1 (ticket 12)"]);
    expect(out).toMatchObject({ rowIds: ["1"], wrote: true });
    const t = standIn();
    const added = await reconcileRows(t.storage, encrypt, parsed([declared("a"), declared("c")], "ticket 12"), "cfg", current([row("1", "a")]), recorded(["a"], ["1"]));
    expect(t.calls).toEqual(["create c (ticket 12)"]);
    expect(added).toMatchObject({ rowIds: ["1", "99"], wrote: true });
  });

  it("updates a row that differs only in its description, or only in being disabled", async () => {
    const s = standIn();
    const rows = [row("1", "a"), row("2", "b")];
    await reconcileRows(s.storage, encrypt, parsed([{ ...declared("a"), description: "new" }, { ...declared("b"), isDisabled: true }]), "cfg", current(rows), recorded(["a", "b"], ["1", "2"]));
    expect(s.calls).toEqual([`update 1 (${DEFAULT_CHANGE_DESCRIPTION})`, `update 2 (${DEFAULT_CHANGE_DESCRIPTION})`]);
  });

  it("a delete alone is a write; a row already gone (404) is deleted, any other refusal fails", async () => {
    const s = standIn(notFound);
    const out = await reconcileRows(s.storage, encrypt, parsed([declared("a")]), "cfg", current([row("1", "a"), row("2", "b")]), recorded(["a", "b"], ["1", "2"]));
    expect(s.calls).toEqual([`delete 2 (${DEFAULT_CHANGE_DESCRIPTION})`]);
    expect(out.wrote).toBe(true);
    await expect(reconcileRows(standIn(refused).storage, encrypt, parsed([declared("a")]), "cfg", current([row("1", "a"), row("2", "b")]), recorded(["a", "b"], ["1", "2"]))).rejects.toThrow("forbidden");
  });
});

describe("orderedRows", () => {
  it("puts rowsSortOrder's rows first, skipping ids no row has, then the rest as listed", () => {
    const c = { rows: [row("1", "a"), row("2", "b"), row("3", "c")], rowsSortOrder: ["3", "gone", "1"] } as unknown as Configuration;
    expect(orderedRows(c).map((r) => r.id)).toEqual(["3", "1", "2"]);
  });
});
