import type { StorageIndex } from "../../keboola/storage-answers";
import type { EmulatorContext } from "../core/context";
import type { StorageApp } from "./auth";
import { list } from "./body";
import { readQuery } from "./body";
import { indexEntry, stackComponents } from "./components";

// `GET /v2/storage[?exclude=components]`: the API index (public, no token) listing the stack's
// services, which official clients use for service discovery, and its components (see
// components.ts: the catalog of a real stack's records plus the components added by option).

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
      features: [],
      urlTemplates: {
        orchestrationJob: "/admin/projects/&&projectId&&/orchestrations/&&orchestrationId&&/jobs/&&jobId&&",
      },
    };
    return c.json(body);
  });
}
