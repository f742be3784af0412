// End to end with the real Pulumi CLI through the repository's root Pulumi project (its program is
// this checkout's dist/provider/manifest/program.js): buckets and tables declared in keboola.yaml.
// The issue's example manifest deploys as written; then buckets, an untyped table loaded from a CSV,
// a typed table with inline rows and a sink writing a declared table: rows are read back through
// the Storage API (data-preview), a second `up` writes and uploads nothing, a one-line CSV edit
// reloads exactly that table, a new column is added in place, a sink mapping that does not match
// its declared table fails the preview with zero writes, and destroy leaves nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startEmulator, type Emulator } from "../../emulator/server";
import { KeboolaClient } from "../../provider/api/client";
import { describeResult, REPO_ROOT } from "./helpers/pulumi";
import { makeRootProject, type RootProject } from "../../scripts/lib/root-project";

// The manifest of issue 17, verbatim.
const ISSUE_EXAMPLE = `buckets:
  ref: { stage: in, name: ref, description: Reference data }
tables:
  countries:
    bucket: ref
    name: countries
    columns: [code, name]
    primaryKey: [code]
    data: countries.csv
`;

const COUNTRIES = "code,name\nCZ,Czechia\nDE,Germany\nFR,France\n";

// The example with a second bucket, a typed table with inline rows, an empty table a sink writes,
// and that sink's source.
function fullManifest(sinkColumns = "[{ type: uuid, name: id, primaryKey: true }, { type: body, name: body }]"): string {
  return (
    ISSUE_EXAMPLE.replace("  ref: { stage: in, name: ref, description: Reference data }\n", "$&  app: { stage: in, name: app, displayName: App-events }\n") +
    `  rates:
    bucket: ref
    name: rates
    columns: [code, rate]
    primaryKey: [code]
    definition:
      code: { type: VARCHAR, length: "2" }
      rate: { type: NUMBER, length: "10,2" }
    data: { rows: [[CZ, "1.50"], [DE, "2.25"]] }
  events:
    bucket: app
    name: events
    columns: [id, body]
    primaryKey: [id]
sources:
  app:
    name: App events
sinks:
  app-events:
    source: app
    name: App events
    tableId: in.c-app.events
    columns: ${sinkColumns}
`
  );
}

describe("e2e: buckets and tables through the root Pulumi project", () => {
  let emu: Emulator;
  let root: RootProject;
  let dir: string;
  let manifest: string;
  let client: KeboolaClient;

  beforeAll(async () => {
    // The root project runs this checkout's build: make sure it has the Table resource.
    expect(fs.existsSync(path.join(REPO_ROOT, "dist", "provider", "kinds", "table", "kind.js")), "run `npm run build` first").toBe(true);
    emu = await startEmulator({ token: "master", taskDurationMs: 20 });
    client = new KeboolaClient({ host: emu.url, token: "master", taskTimeoutSeconds: 30 });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "storage-e2e-"));
    manifest = path.join(dir, "keboola.yaml");
    root = await makeRootProject({ prefix: "storage-e2e", host: emu.url, token: "master", manifest });
  }, 30 * 60 * 1000);

  afterAll(async () => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
    await root?.cleanup();
    await emu?.close();
  });

  const rows = async (tableId: string) => (await client.storage.previewRows("default", tableId)).rows;
  const liveTables = () => Object.values(emu.state.storage.tables).map((t) => t.id).sort();
  const liveBuckets = () => Object.values(emu.state.storage.buckets).map((b) => b.id).sort();
  /** Requests of File Storage (prepare, file details) and of the object store (uploads). */
  const fileRequests = () => emu.requests().filter((r) => r.path.startsWith("/files/") || /\/v2\/storage\/(branch\/[^/]+\/)?files\b/.test(r.path));
  const up = async () => {
    const res = await root.pulumi(["up", "--yes", "--skip-preview"], { timeoutMs: 300_000 });
    expect(res.code, describeResult(res)).toBe(0);
    return res;
  };

  it("deploys the issue's example manifest as written: in.c-ref and in.c-ref.countries with the CSV's rows", async () => {
    fs.writeFileSync(manifest, ISSUE_EXAMPLE);
    fs.writeFileSync(path.join(dir, "countries.csv"), COUNTRIES);
    const res = await up();
    expect(res.stdout).toContain("pulumi-nodejs:dynamic/keboola:Bucket ");
    expect(res.stdout).toContain("pulumi-nodejs:dynamic/keboola:Table ");
    expect(res.stdout).toMatch(/\+ 3 created/); // bucket, table and the stack
    // The S3 client that uploaded the CSV printed nothing of its own (on Node < 22 the AWS SDK's
    // notice about its future Node support would stand under the stack in every such deploy).
    expect(`${res.stdout}\n${res.stderr}`).not.toMatch(/NodeVersionSupportWarning|AWS SDK/);
    expect(liveBuckets()).toEqual(["in.c-ref"]);
    expect(liveTables()).toEqual(["in.c-ref.countries"]);
    expect(await rows("in.c-ref.countries")).toEqual([
      ["CZ", "Czechia"],
      ["DE", "Germany"],
      ["FR", "France"],
    ]);
    const detail = await client.storage.findTableDetail("default", "in.c-ref.countries");
    expect(detail?.primaryKey).toEqual(["code"]);
    const bucket = await client.storage.findBucket("default", "in.c-ref");
    expect(bucket?.description).toBe("Reference data");
  }, 600_000);

  it("adds a typed table and a sink into a declared table; a second up writes and uploads nothing", async () => {
    fs.writeFileSync(manifest, fullManifest());
    emu.clearRequests();
    const res = await up();
    expect(res.stdout).toMatch(/\+ 5 created/); // the app bucket, rates, events, the source and the sink
    // The countries table was not touched: nothing uploaded for it, no import.
    expect(emu.writes().filter((w) => w.path.includes("in.c-ref.countries"))).toEqual([]);
    expect(liveTables()).toEqual(["in.c-app.events", "in.c-ref.countries", "in.c-ref.rates"]);
    expect(liveBuckets()).toEqual(["in.c-app", "in.c-ref"]);
    // The typed table: created through tables-definition, its rows loaded with import-async.
    const rates = await client.storage.findTableDetail("default", "in.c-ref.rates");
    expect(rates?.isTyped).toBe(true);
    expect(await rows("in.c-ref.rates")).toEqual([
      ["CZ", "1.50"],
      ["DE", "2.25"],
    ]);
    // The sink writes the declared, still empty table.
    expect(await rows("in.c-app.events")).toEqual([]);
    const sink = Object.values(emu.state.stream.sinks).find((s) => !s.deleted);
    expect(JSON.stringify(sink)).toContain("in.c-app.events");

    emu.clearRequests();
    const again = await root.pulumi(["up", "--yes", "--expect-no-changes"], { timeoutMs: 300_000 });
    expect(again.code, describeResult(again)).toBe(0);
    expect(emu.writes()).toEqual([]);
    expect(fileRequests()).toEqual([]);
  }, 600_000);

  it("editing one CSV line reloads exactly that table (one upload, one import-async)", async () => {
    fs.writeFileSync(path.join(dir, "countries.csv"), COUNTRIES.replace("DE,Germany", "DE,Deutschland"));
    const diff = await root.pulumi(["preview", "--diff"], { timeoutMs: 300_000 });
    expect(diff.code, describeResult(diff)).toBe(0);
    expect(diff.stdout).toMatch(/Resources:\s+~ 1 to update\s+7 unchanged/);
    expect(diff.stdout).toMatch(/~ dataContent *: "42 B, sha256 [0-9a-f]{64}" => "46 B, sha256 [0-9a-f]{64}"/);

    emu.clearRequests();
    await up();
    const writes = emu.writes().map((w) => `${w.method} ${w.path.replace(/\?.*$/, "")}`);
    expect(writes.filter((w) => w.endsWith("/import-async"))).toEqual(["POST /v2/storage/tables/in.c-ref.countries/import-async"]);
    expect(writes.filter((w) => w.endsWith("/files/prepare"))).toHaveLength(1);
    expect(writes.filter((w) => /tables-async|tables-definition|in\.c-ref\.rates|in\.c-app/.test(w))).toEqual([]);
    expect(await rows("in.c-ref.countries")).toContainEqual(["DE", "Deutschland"]);
    expect(await rows("in.c-ref.countries")).toHaveLength(3);
  }, 600_000);

  it("adding a column updates the table in place (no replace): same table, the new column filled", async () => {
    fs.writeFileSync(path.join(dir, "countries.csv"), "code,name,region\nCZ,Czechia,EU\nDE,Deutschland,EU\nFR,France,EU\n");
    fs.writeFileSync(manifest, fullManifest().replace("columns: [code, name]\n", "columns: [code, name, region]\n"));
    const diff = await root.pulumi(["preview", "--diff"], { timeoutMs: 300_000 });
    expect(diff.code, describeResult(diff)).toBe(0);
    expect(diff.stdout).toMatch(/Resources:\s+~ 1 to update\s+7 unchanged/);
    expect(diff.stdout).not.toMatch(/replace/);
    const created = Object.values(emu.state.storage.tables).find((t) => t.id === "in.c-ref.countries")?.created;

    emu.clearRequests();
    await up();
    const writes = emu.writes().map((w) => `${w.method} ${w.path.replace(/\?.*$/, "")}`);
    expect(writes).toContain("POST /v2/storage/tables/in.c-ref.countries/columns");
    expect(writes.some((w) => w.startsWith("DELETE"))).toBe(false);
    const detail = await client.storage.findTableDetail("default", "in.c-ref.countries");
    expect(detail?.columns).toEqual(["code", "name", "region"]);
    expect(Object.values(emu.state.storage.tables).find((t) => t.id === "in.c-ref.countries")?.created).toBe(created);
    expect(await rows("in.c-ref.countries")).toContainEqual(["CZ", "Czechia", "EU"]);
  }, 600_000);

  it("a sink mapping that does not match its declared table fails at preview, writing nothing", async () => {
    fs.writeFileSync(
      manifest,
      fullManifest("[{ type: uuid, name: id, primaryKey: true }, { type: body, name: payload }]").replace("columns: [code, name]\n", "columns: [code, name, region]\n"),
    );
    emu.clearRequests();
    const res = await root.pulumi(["preview"], { timeoutMs: 300_000 });
    expect(res.code).not.toBe(0);
    expect(res.stdout).toMatch(/declared by keboola:Table "events"/);
    expect(res.stdout).toMatch(/table columns: +\[id, body\]/);
    expect(res.stdout).toMatch(/mapping columns: \[id, payload\]/);
    expect(emu.writes()).toEqual([]);
  }, 600_000);

  it("destroy leaves nothing: no table, no bucket, no sink, no source", async () => {
    const res = await root.pulumi(["destroy", "--yes", "--skip-preview"], { timeoutMs: 300_000 });
    expect(res.code, describeResult(res)).toBe(0);
    expect(liveTables()).toEqual([]);
    expect(liveBuckets()).toEqual([]);
    expect([...Object.values(emu.state.stream.sources), ...Object.values(emu.state.stream.sinks)].filter((o) => !o.deleted)).toEqual([]);
  }, 600_000);
});
