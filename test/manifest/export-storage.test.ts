import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../emulator/server";
import { KeboolaClient } from "../../provider/api/client";
import { uploadToStorage } from "../../provider/api/upload";
import { exportProject } from "../../provider/manifest/export";
import { parseManifest } from "../../provider/manifest/parse";
import type { ResourceContext } from "../../provider/lifecycle/types";
import { bucket, table } from "../provider/hosted";
import { createVia } from "../provider/harness";

// Export of Storage: buckets and table schemas (columns, primary key, typed definition), never the
// rows; the exported entries parse, and deploying them takes the live objects over writing only
// the owner markers (nothing to reload: no data is declared).

const TOKEN = "export-storage-token-8d1e";
let emu: Emulator;
let client: KeboolaClient;
let ctx: ResourceContext;

beforeAll(async () => {
  emu = await startEmulator({ token: TOKEN, taskDurationMs: 10 });
  client = new KeboolaClient({ host: emu.url, token: TOKEN, taskTimeoutSeconds: 30 });
  ctx = { client: () => client };
  // Made through the APIs, as a UI user would.
  const s = client.storage;
  await s.createBucket("default", { name: "ref", stage: "in", description: "Reference data" });
  await s.createBucket("default", { name: "reports", stage: "out", displayName: "Monthly-reports" });
  const file = await uploadToStorage(s, "default", { text: "code,name\nCZ,Czechia\nDE,Germany\n" }, { name: "countries.csv.gz", tags: [] });
  await s.waitJob(await s.createTableAsync("default", "in.c-ref", { name: "countries", dataFileId: file.file.id, primaryKey: "code", delimiter: ",", enclosure: '"' }), "test");
  await s.waitJob(
    await s.createTableDefinition("default", "out.c-reports", {
      name: "monthly",
      primaryKeysNames: ["month"],
      columns: [
        { name: "month", definition: { type: "DATE", nullable: false }, basetype: "DATE" },
        { name: "total", definition: { type: "NUMBER", length: "12,2" }, basetype: "NUMERIC" },
      ],
    }),
    "test",
  );
});
afterAll(async () => {
  await emu?.close();
});

describe("export of buckets and tables", () => {
  it("writes buckets and table schemas, not rows, and the YAML parses", async () => {
    const { manifest, yaml, notes } = await exportProject(client);
    expect(manifest.buckets).toEqual({
      ref: { stage: "in", name: "ref", description: "Reference data", adoptExisting: true },
      reports: { stage: "out", name: "reports", displayName: "Monthly-reports", adoptExisting: true },
    });
    expect(manifest.tables).toEqual({
      countries: { bucket: "ref", name: "countries", columns: ["code", "name"], primaryKey: ["code"], adoptExisting: true },
      monthly: {
        bucket: "reports",
        name: "monthly",
        columns: ["month", "total"],
        primaryKey: ["month"],
        definition: { month: { type: "DATE", nullable: false }, total: { type: "NUMBER", length: "12,2" } },
        adoptExisting: true,
      },
    });
    expect(yaml).not.toMatch(/Czechia|data:/);
    expect(notes).toContain("2 table(s) exported as schemas only: their rows are not written; declare `data` (a CSV path) on a table to manage its rows");
    const parsed = parseManifest(yaml, "keboola.yaml");
    expect(Object.keys(parsed.tables ?? {})).toEqual(["countries", "monthly"]);
  });

  it("deploying the exported entries takes the objects over, writing only owner markers; the rows stay", async () => {
    const { manifest } = await exportProject(client);
    emu.clearRequests();
    const ids: Record<string, string> = {};
    for (const [key, b] of Object.entries(manifest.buckets ?? {})) ids[key] = (await createVia(bucket, ctx, key, b)).id;
    for (const [key, { bucket: b, ...t }] of Object.entries(manifest.tables ?? {})) await createVia(table, ctx, key, { ...t, bucketId: ids[b] });
    const writes = emu.writes().map((w) => `${w.method} ${w.path.replace(/\?.*$/, "")}`);
    expect(writes.sort()).toEqual([
      "POST /v2/storage/buckets/in.c-ref/metadata",
      "POST /v2/storage/buckets/out.c-reports/metadata",
      "POST /v2/storage/tables/in.c-ref.countries/metadata",
      "POST /v2/storage/tables/out.c-reports.monthly/metadata",
    ]);
    expect((await client.storage.previewRows("default", "in.c-ref.countries")).rows).toEqual([
      ["CZ", "Czechia"],
      ["DE", "Germany"],
    ]);
  });
});
