import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../emulator/server";
import { call } from "./helpers";

// `features` of the Storage index (emulator/storage/service-index.ts STACK_FEATURES). Expected
// answers from keboola/keboola-sdk-go v2.21.0 pkg/keboola/storage_index_test.go (TestIndexRequest,
// TestIndexRequest_WithoutToken, TestIndexComponents, TestIndexComponents_WithoutToken: features
// and services non-empty, `encryption` and `scheduler` among the services, asked without a token),
// the index example of keboola/storage-api-php-client apiary.apib (`disable-sync-import-data`),
// keboola-sdk-go pkg/keboola/api_test.go (`dynamic-backend-size`, `project-read-only-role-enabled`)
// and storage_bucket.go (`disable-legacy-bucket-prefix`), and keboola/app-project-migrate-validation
// commit d366d90 (a project's features are in tokens/verify, not in the index).

let emu: Emulator;
const STACK_FEATURES = ["disable-sync-import-data", "dynamic-backend-size", "project-read-only-role-enabled"];

beforeAll(async () => {
  emu = await startEmulator({ token: "master", limitedToken: "limited", taskDurationMs: 5 });
});
afterAll(() => emu.close());

describe("the index's stack features", () => {
  it("lists the stack's features without a token, as IndexRequest and IndexComponentsRequest ask", async () => {
    for (const path of ["/v2/storage/?exclude=components", "/v2/storage/"]) {
      const r = await call(emu.url, "GET", path, { token: null });
      expect(r.status).toBe(200);
      expect(r.body.features).toEqual(STACK_FEATURES);
      const services = (r.body.services as Array<{ id: string }>).map((s) => s.id);
      expect(services).toEqual(expect.arrayContaining(["encryption", "scheduler"]));
    }
  });

  it("lists the same features with a token, whichever token", async () => {
    for (const token of ["master", "limited"]) {
      const r = await call(emu.url, "GET", "/v2/storage?exclude=components", { token });
      expect(r.body.features).toEqual(STACK_FEATURES);
    }
    expect((await call(emu.url, "GET", "/v2/storage?exclude=componentDetails", { token: "master" })).body.features).toEqual(STACK_FEATURES);
  });

  it("keeps the project's features to tokens/verify, whatever they are", async () => {
    const verify = await call(emu.url, "GET", "/v2/storage/tokens/verify", { token: "master" });
    const index = await call(emu.url, "GET", "/v2/storage?exclude=components", { token: "master" });
    expect(verify.body.owner.features).toContain("queuev2");
    expect(index.body.features).not.toContain("queuev2");
    const other = await startEmulator({ token: "t", projectFeatures: ["new-native-types"] });
    try {
      expect((await call(other.url, "GET", "/v2/storage?exclude=components", { token: "t" })).body.features).toEqual(STACK_FEATURES);
    } finally {
      await other.close();
    }
  });

  it("does not list disable-legacy-bucket-prefix, since Storage here adds `c-` to a bucket's name as keboola-sdk-go then expects", async () => {
    const index = await call(emu.url, "GET", "/v2/storage?exclude=components", { token: null });
    expect(index.body.features).not.toContain("disable-legacy-bucket-prefix");
    // Without the feature, CreateBucketRequest trims `c-` from `c-sdk` and sends `sdk`.
    const bucket = await call(emu.url, "POST", "/v2/storage/branch/default/buckets", { token: "master", json: { stage: "in", name: "sdk" } });
    expect(bucket.status).toBe(201);
    expect(bucket.body.id).toBe("in.c-sdk");
  });
});
