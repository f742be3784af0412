import type { StorageIndex } from "../../keboola/storage-answers";
import type { EmulatorContext } from "../core/context";
import type { StorageApp } from "./auth";
import { list } from "./body";
import { readQuery } from "./body";
import { indexEntry, stackComponents } from "./components";

// `GET /v2/storage[?exclude=components]`: the API index (public, no token) listing the stack's
// services, which official clients use for service discovery, and its components (see
// components.ts: the catalog of a real stack's records plus the components added by option).

/**
 * The stack's features: `features` of the index, the same with a token as without one. They are
 * the stack's, not the project's: the project's are `owner.features` of tokens/verify
 * (project-features.ts). keboola/app-project-migrate-validation looked for the project feature
 * `queuev2` in the index (src/Validate.php, commit 8dd6d95) and had to read tokens/verify instead
 * ("fix validate features", d366d90), because the index does not list a project's features.
 * keboola-sdk-go's index tests need the list non-empty, asked with or without a token
 * (pkg/keboola/storage_index_test.go TestIndexRequest, TestIndexRequest_WithoutToken,
 * TestIndexComponents, TestIndexComponents_WithoutToken: `assert.NotEmpty(t, result.Features)`).
 *
 * No public source records a whole list of a real stack, so these are the stack features public
 * sources name as index features:
 * - `disable-sync-import-data`: the index example of keboola/storage-api-php-client apiary.apib
 *   ("API Index", `GET /v2/storage?exclude={exclude}`);
 * - `dynamic-backend-size` and `project-read-only-role-enabled`: the indexes keboola-sdk-go's
 *   tests build (pkg/keboola/api_test.go mockedClient, TestNewAPI_WithIndex).
 * Left out on purpose: `disable-legacy-bucket-prefix`. keboola-sdk-go reads it from the index
 * (pkg/keboola/storage_bucket.go CreateBucketRequest): without it, it trims the `c-` of a bucket
 * name because Storage adds it; with it, it sends the name as is. The emulator always adds `c-`
 * (keboola/storage.ts bucketIdOf), so listing it would make the SDK's buckets `c-c-...`.
 */
export const STACK_FEATURES: readonly string[] = ["disable-sync-import-data", "dynamic-backend-size", "project-read-only-role-enabled"];

export function registerIndexRoutes(api: StorageApp, ctx: EmulatorContext): void {
  api.get("/", (c) => {
    const exclude = list(readQuery(c).exclude) ?? [];
    const urls = ctx.urls();
    const details = !exclude.includes("componentDetails");
    const body: StorageIndex = {
      api: "storage",
      documentation: "https://keboola.docs.apiary.io/",
      version: "v2",
      ...(exclude.includes("components") ? {} : { components: stackComponents(ctx.state.storage).map((k) => indexEntry(k, details)) }),
      services: [
        { id: "data-science", url: urls.dataScience },
        { id: "editor", url: urls.editor },
        { id: "encryption", url: urls.encryption },
        { id: "import", url: urls.import },
        { id: "notification", url: urls.notification },
        { id: "queue", url: urls.queue },
        { id: "scheduler", url: urls.scheduler },
        { id: "stream", url: urls.stream },
      ],
      features: [...STACK_FEATURES],
      urlTemplates: {
        orchestrationJob: "/admin/projects/&&projectId&&/orchestrations/&&orchestrationId&&/jobs/&&jobId&&",
      },
    };
    return c.json(body);
  });
}
