import type { EmulatorContext } from "../core/context";
import { list } from "./body";
import { readQuery } from "./body";
import type { StorageRouter } from "./router";

// `GET /v2/storage[?exclude=components]`: the API index (public, no token) listing the stack's
// services, which official clients use for service discovery, and its components.

/** Components the emulated stack knows (a small subset of a real stack's list). */
export const KNOWN_COMPONENTS: Array<{ id: string; type: string; name: string; description: string }> = [
  { id: "keboola.variables", type: "other", name: "Variables", description: "Variables for configurations" },
  { id: "keboola.ex-generic-v2", type: "extractor", name: "Generic Extractor", description: "Extract data from any REST API" },
  { id: "keboola.ex-http", type: "extractor", name: "HTTP", description: "Download CSV files from any URL" },
  { id: "keboola.python-transformation-v2", type: "transformation", name: "Python", description: "Python transformation" },
  {
    id: "keboola.snowflake-transformation",
    type: "transformation",
    name: "Snowflake SQL",
    description: "Snowflake SQL transformation",
  },
  { id: "keboola.orchestrator", type: "other", name: "Flow", description: "Run components in phases" },
  { id: "keboola.shared-code", type: "other", name: "Shared Code", description: "Code shared by transformations" },
];

export function componentDefinition(id: string, details: boolean): Record<string, unknown> {
  const known = KNOWN_COMPONENTS.find((c) => c.id === id);
  const base = {
    id,
    type: known?.type ?? "other",
    name: known?.name ?? id,
    description: known?.description ?? "",
    longDescription: null,
    version: 1,
    complexity: null,
    categories: [],
    hasUI: false,
    hasRun: true,
    ico32: null,
    ico64: null,
    ico128: null,
    flags: [] as string[],
    configurationSchema: {},
    configurationRowSchema: {},
    emptyConfiguration: {},
    emptyConfigurationRow: {},
    uiOptions: {},
    configurationDescription: null,
    features: [] as string[],
    expiredOn: null,
    uri: null,
    documentationUrl: null,
  };
  if (!details) {
    const { id: i, name, type, ico64, ico128, flags, description, categories, features } = base;
    return { id: i, name, type, ico64, ico128, features, flags, description, categories };
  }
  return { ...base, data: { definition: { type: "aws-ecr", uri: `emulated/${id}`, tag: "latest" } } };
}

export function registerIndexRoutes(router: StorageRouter, ctx: EmulatorContext): void {
  router.on(
    "GET",
    "",
    ({ c }) => {
      const exclude = list(readQuery(c).exclude) ?? [];
      const urls = ctx.urls();
      const body: Record<string, unknown> = {
        api: "storage",
        documentation: "https://keboola.docs.apiary.io/",
        version: "v2",
      };
      if (!exclude.includes("components")) {
        const details = !exclude.includes("componentDetails");
        body.components = KNOWN_COMPONENTS.map((k) => componentDefinition(k.id, details));
      }
      body.services = [
        { id: "encryption", url: urls.encryption },
        { id: "import", url: urls.import },
        { id: "queue", url: urls.queue },
        { id: "stream", url: urls.stream },
      ];
      body.features = [];
      body.urlTemplates = {
        orchestrationJob: "/admin/projects/&&projectId&&/orchestrations/&&orchestrationId&&/jobs/&&jobId&&",
      };
      return c.json(body);
    },
    { public: true, branch: false },
  );
}
