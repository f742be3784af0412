import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { createWriteStream, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FaultOptions } from "../../emulator/core/faults";
import { KeboolaClient } from "../../provider/api/client";
import { StorageApi } from "../../provider/api/storage";
import { PartialFailure, type Props, type ResourceContext } from "../../provider/lifecycle/types";
import { CONTENT_KEY, OWNER_KEY } from "../../provider/lifecycle/ownership";
import { slicing } from "../../provider/api/upload";
import { bucket, table } from "./hosted";
import { createVia, HARNESS_POLLS, MASTER_TOKEN, ownerUrn, startHarness, updateVia, type Harness, withOneFault } from "./harness";

// Bucket and Table under faults in each step of loading data: a lost answer (the request is applied,
// its answer never arrives) and a 5xx (not applied) on file prepare, on an object-store upload
// part, on tables-async and on import-async, and a crash between the upload and the job (before
// the job is submitted, and after it was submitted but before its answer was read). Each fault is
// injected once into exactly that request and asserted injected; the run may fail, and then the
// next run (Pulumi's next `up`: a create again, or an update of the partial state) converges to
// exactly one table, created by exactly one job, with exactly the declared rows and the hash of
// what it loaded, never a table recorded as loaded when its load failed.

let h: Harness;
let dir: string;
beforeAll(async () => {
  h = await startHarness({ taskDurationMs: 10 });
  dir = mkdtempSync(join(tmpdir(), "kp-storage-faults-"));
  await createVia(bucket, h.ctx, "faults", { stage: "in", name: "faults" });
});
afterAll(async () => {
  await h?.close();
});

const FAULTS = { lost: { rateLostResponse: 1 }, "5xx": { rate5xx: 1 } } satisfies Record<string, FaultOptions>;
type Kind = keyof typeof FAULTS;

/** Runs `step` with `kind` injected into its first `method` request under `prefix`; asserts exactly one was injected. */
const faulted = <T>(kind: Kind, method: string, prefix: string, step: () => Promise<T>): Promise<T> => withOneFault(h, kind, FAULTS[kind], method, prefix, step);

type Outcome = { id: string; outs: Props; inputs: Props };

/** A create, and when it failed, what the next `up` does: create again, or update the partial state Pulumi kept. */
async function createConverging(name: string, args: Props, first: () => Promise<Outcome>): Promise<{ result: Outcome; failed?: unknown }> {
  try {
    return { result: await first() };
  } catch (failed) {
    if (failed instanceof PartialFailure) {
      // Pulumi keeps the partial state: no dataContent in it, so the next diff loads the data again.
      expect(failed.properties.dataContent).toBeUndefined();
      const next = await updateVia(table, h.ctx, name, failed.id, failed.properties, failed.properties, args);
      return { result: { id: failed.id, outs: next.outs, inputs: next.inputs }, failed };
    }
    return { result: await createVia(table, h.ctx, name, args), failed };
  }
}

const storage = () => h.ctx.client().storage;
const rowsOf = async (id: string) => (await storage().previewRows("default", id, 1000)).rows;
const tablesNamed = (name: string) => Object.values(h.emu.state.storage.tables).filter((t) => t.name === name);
const jobsFor = (operation: string, name: string) =>
  Object.values(h.emu.state.storage.jobs).filter(
    (j) => j.operationName === operation && j.status === "success" && (j.tableId?.endsWith(`.${name}`) || (j.operationParams as { params?: { name?: string } }).params?.name === name),
  );

/** One table of this name, created by one job, with these rows, its owner marker and the hash of its content. */
async function expectConverged(name: string, outs: Props, rows: string[][]) {
  expect(tablesNamed(name)).toHaveLength(1);
  expect(jobsFor("tableCreate", name)).toHaveLength(1);
  const id = `in.c-faults.${name}`;
  expect(await rowsOf(id)).toEqual(rows);
  const detail = await storage().findTableDetail("default", id);
  expect(detail?.metadata?.find((m) => m.key === OWNER_KEY)?.value).toBe(ownerUrn(name));
  expect(outs.dataContent).toMatch(/sha256 [0-9a-f]{64}$/);
  expect(detail?.metadata?.find((m) => m.key === CONTENT_KEY)?.value).toBe(String(outs.dataContent).split("sha256 ")[1]);
}

const csv = (name: string, text: string) => {
  const p = join(dir, `${name}.csv`);
  writeFileSync(p, text);
  return p;
};
const ROWS = [
  ["CZ", "Czechia"],
  ["DE", "Germany"],
];
const text = (rows: string[][]) => ["code,name", ...rows.map((r) => r.join(","))].join("\n") + "\n";

/** A CSV large enough for a multipart upload (gzipped above the 16 MiB part size): incompressible values. */
async function bigCsv(name: string, rows: number): Promise<string> {
  const p = join(dir, `${name}.csv`);
  const out = createWriteStream(p);
  out.write("id,payload\n");
  for (let i = 0; i < rows; i += 1000) {
    // One draw of random bytes per thousand rows (a call per row cost seconds), 48 bytes a row.
    const random = randomBytes(48 * 1000);
    const chunk: string[] = [];
    for (let j = i; j < Math.min(rows, i + 1000); j++) chunk.push(`${j},${random.subarray((j - i) * 48, (j - i + 1) * 48).toString("base64")}`);
    if (!out.write(chunk.join("\n") + "\n")) await new Promise<void>((r) => out.once("drain", () => r()));
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  return p;
}

describe.each(Object.keys(FAULTS) as Kind[])("a %s", (kind) => {
  it("on file prepare: the table is created once with its rows", async () => {
    const name = `prepare_${kind.replace(/\W/g, "x")}`;
    const args = { bucketId: "in.c-faults", name, columns: ["code", "name"], primaryKey: ["code"], data: csv(name, text(ROWS)) };
    const { result } = await faulted(kind, "POST", "/v2/storage/files/prepare", () => createConverging(name, args, () => createVia(table, h.ctx, name, args)));
    await expectConverged(name, result.outs, ROWS);
  });

  it("on tables-async: no second table, no second create job, the rows as declared", async () => {
    const name = `create_${kind.replace(/\W/g, "x")}`;
    const args = { bucketId: "in.c-faults", name, columns: ["code", "name"], primaryKey: ["code"], data: csv(name, text(ROWS)) };
    // A 5xx is refused before anything happens; a lost answer leaves the job running: its table is found, never created twice.
    const { result } = await faulted(kind, "POST", "/v2/storage/buckets/in.c-faults/tables-async", () =>
      createConverging(name, args, () => createVia(table, h.ctx, name, args)),
    );
    await expectConverged(name, result.outs, ROWS);
  });

  it("on import-async of a changed CSV: the failed run records no content, the next one loads it once, rows as declared", async () => {
    const name = `import_${kind.replace(/\W/g, "x")}`;
    const path = csv(name, text(ROWS));
    const args = { bucketId: "in.c-faults", name, columns: ["code", "name"], primaryKey: ["code"], data: path };
    const created = await createVia(table, h.ctx, name, args);
    const edited = [ROWS[0], ["DE", "Deutschland"], ["FR", "France"]];
    writeFileSync(path, text(edited));
    const run = () => updateVia(table, h.ctx, name, created.id, created.outs, created.inputs, args);
    let outs: Props;
    try {
      outs = (await faulted(kind, "POST", `/v2/storage/tables/in.c-faults.${name}/import-async`, run)).outs;
    } catch (failed) {
      // The table keeps its previous state: its recorded content is the old one, so the next `up` loads the file again.
      expect(failed).toBeInstanceOf(PartialFailure);
      expect((failed as PartialFailure).properties.dataContent).toBe(created.outs.dataContent);
      outs = (await updateVia(table, h.ctx, name, created.id, (failed as PartialFailure).properties, created.inputs, args)).outs;
    }
    await expectConverged(name, outs, edited);
  });

  it("on an object-store upload part of a multipart upload: one table with every row", async () => {
    const name = `part_${kind.replace(/\W/g, "x")}`;
    const rows = 400_000;
    const args = { bucketId: "in.c-faults", name, columns: ["id", "payload"], data: await bigCsv(name, rows) };
    const { result } = await faulted(kind, "PUT", "/files/", () => createConverging(name, args, () => createVia(table, h.ctx, name, args)));
    // The object store saw a multipart upload (CreateMultipartUpload ... UploadPart ... Complete).
    expect(h.emu.requests().some((r) => r.method === "PUT" && /[?&]partNumber=2\b/.test(r.path))).toBe(true);
    expect(tablesNamed(name)).toHaveLength(1);
    expect(jobsFor("tableCreate", name)).toHaveLength(1);
    const detail = await storage().findTableDetail("default", `in.c-faults.${name}`);
    expect(detail?.rowsCount).toBe(rows);
    expect(result.outs.dataContent).toMatch(/MB, sha256 [0-9a-f]{64}$/);
  }, 120_000);
});

describe("a crash between the upload and the job", () => {
  /** A context whose Storage API dies (as the provider process would) around the create job. */
  function crashingContext(when: "before-job" | "after-job"): ResourceContext {
    const client = new KeboolaClient({ host: h.emu.url, token: MASTER_TOKEN, taskTimeoutSeconds: 20, http: { retryBaseMs: 5, retryMaxMs: 40 }, polls: HARNESS_POLLS });
    const api = client.storage;
    const real = StorageApi.prototype.createTableAsync.bind(api);
    api.createTableAsync = async (...args: Parameters<StorageApi["createTableAsync"]>) => {
      if (when === "after-job") await real(...args);
      throw new Error("provider process killed");
    };
    return { client: () => client };
  }

  it.each(["before-job", "after-job"] as const)("%s: the next run makes exactly one table with the declared rows", async (when) => {
    const name = `crash_${when.replace(/-/g, "_")}`;
    const args = { bucketId: "in.c-faults", name, columns: ["code", "name"], primaryKey: ["code"], data: csv(name, text(ROWS)) };
    const uploadsBefore = h.emu.requests().filter((r) => r.method === "PUT" && r.path.startsWith("/files/")).length;
    const crashed = await createVia(table, crashingContext(when), name, args).catch((e: unknown) => e);
    expect(crashed instanceof Error ? crashed.message : JSON.stringify(crashed)).toMatch(/provider process killed/);
    // The upload happened before the crash.
    expect(h.emu.requests().filter((r) => r.method === "PUT" && r.path.startsWith("/files/")).length).toBeGreaterThan(uploadsBefore);
    // After the job was submitted its table appears with no marker of ours; before it, nothing does.
    const submitted = Object.values(h.emu.state.storage.jobs).filter((j) => j.operationName === "tableCreate" && (j.operationParams as { params?: { name?: string } }).params?.name === name);
    expect(submitted).toHaveLength(when === "after-job" ? 1 : 0);
    // The job runs on without the provider: by the next run its table exists, unmarked, and the preview must take it for ours.
    if (submitted[0]) await storage().waitJob({ id: submitted[0].id, status: submitted[0].status, operationName: submitted[0].operationName }, "the crashed create job");
    // Pulumi recorded nothing (the create never answered): the next `up` creates again.
    const next = await createVia(table, h.ctx, name, args);
    await expectConverged(name, next.outs, ROWS);
  });
});

describe("a large file goes sliced", () => {
  const saved = { ...slicing };
  beforeAll(() => Object.assign(slicing, { thresholdBytes: 3 * 1024 * 1024, sliceBytes: 1024 * 1024 }));
  afterAll(() => Object.assign(slicing, saved));

  it("created from its header, loaded from a manifest of slices: every row once", async () => {
    const name = "sliced_create";
    const rows = 60_000;
    const args = { bucketId: "in.c-faults", name, columns: ["id", "payload"], data: await bigCsv(name, rows) };
    const { outs } = await createVia(table, h.ctx, name, args);
    const sliced = Object.values(h.emu.state.storage.files).filter((f) => f.isSliced && f.uploaded);
    expect(sliced.length).toBeGreaterThan(0);
    expect(h.emu.requests().filter((r) => r.method === "PUT" && /00002\.csv\.gz/.test(r.path)).length).toBeGreaterThan(0);
    expect(tablesNamed(name)).toHaveLength(1);
    expect((await storage().findTableDetail("default", `in.c-faults.${name}`))?.rowsCount).toBe(rows);
    expect(outs.dataContent).toMatch(/MB, sha256 [0-9a-f]{64}$/);
  }, 120_000);

  it.each(Object.keys(FAULTS) as Kind[])("a %s on one slice is retried: one table with every row", async (kind) => {
    const name = `sliced_${kind.replace(/\W/g, "x")}`;
    const small = { bucketId: "in.c-faults", name, columns: ["id", "payload"], data: csv(name, "id,payload\n1,a\n") };
    const made = await createVia(table, h.ctx, name, small);
    const rows = 50_000;
    const big = { ...small, data: await bigCsv(`${name}_big`, rows) };
    const before = h.emu.requests().length;
    await faulted(kind, "PUT", "/files/", () => updateVia(table, h.ctx, name, made.id, made.outs, made.inputs, big));
    expect(h.emu.requests().slice(before).some((r) => r.method === "PUT" && /manifest/.test(r.path))).toBe(true);
    expect(tablesNamed(name)).toHaveLength(1);
    expect((await storage().findTableDetail("default", `in.c-faults.${name}`))?.rowsCount).toBe(rows);
  }, 120_000);
});
