import { z } from "zod";
import type { JsonValue } from "../../keboola/json";
import catalogFile from "./component-catalog.json";

// The components of the emulated stack: the catalog (component-catalog.json, records as the
// Storage API index returns them; where each field comes from is in that file and in
// component-catalog.md) plus the components added for tests and demos (EmulatorOptions.components,
// `--component`), which are kept in the state so a restart from the state file lists them too.
//
// The API index lists them (`GET /v2/storage`, short entries with `?exclude=componentDetails`),
// `GET /v2/storage/components` gives each configured component with its configurations, and
// `GET /v2/storage/components/{id}` gives one component's detail (component-routes.ts).
//
// This module imports nothing of the emulator: the state (state.ts) keeps ComponentRecords and
// the context's options (core/context.ts) take ComponentSpecs, so what it reads of the state is
// named here (AddedComponents) rather than imported from them.

/** Component types of the real index (keboola-sdk-go pkg/keboola/storage_component.go and the indexes recorded). */
export const COMPONENT_TYPES = ["extractor", "writer", "transformation", "application", "processor", "code-pattern", "other"] as const;

const json: z.ZodType<JsonValue> = z.json();
const jsonObject = z.record(z.string(), json);

/** One component as the index returns it with details (keys in the order the real records have). */
const componentRecord = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "a component id has letters, digits, dots, dashes and underscores (e.g. keboola.ex-http)"),
  type: z.enum(COMPONENT_TYPES),
  name: z.string(),
  description: z.string(),
  longDescription: z.string().nullable(),
  version: z.number().int(),
  complexity: z.string().nullable(),
  categories: z.array(z.string()),
  hasUI: z.boolean(),
  hasRun: z.boolean(),
  ico32: z.string().nullable(),
  ico64: z.string().nullable(),
  ico128: z.string().nullable(),
  data: jsonObject,
  flags: z.array(z.string()),
  configurationSchema: jsonObject,
  configurationRowSchema: jsonObject,
  emptyConfiguration: jsonObject,
  emptyConfigurationRow: jsonObject,
  uiOptions: jsonObject,
  configurationDescription: z.string().nullable(),
  features: z.array(z.string()),
  expiredOn: z.string().nullable(),
  uri: z.string().nullable(),
  documentationUrl: z.string().nullable(),
});

export type ComponentRecord = z.infer<typeof componentRecord>;

/** What this module reads of the Storage state (state.ts StorageState): the added components, by id. */
export interface AddedComponents {
  addedComponents: Record<string, ComponentRecord>;
}

/** A component to add: its id, and any fields of the record (the others get neutral values). */
export const componentSpec = componentRecord.partial().required({ id: true });
export type ComponentSpec = z.input<typeof componentSpec>;

const CATALOG: readonly ComponentRecord[] = z
  .object({ components: z.array(componentRecord) })
  .parse(catalogFile, { reportInput: false }).components;

/**
 * The full record of a component given in part. The fields not given take the values real
 * records have for absent data, and the image and job URI patterns of the recorded ones.
 */
export function componentFromSpec(spec: ComponentSpec): ComponentRecord {
  const s = componentSpec.parse(spec);
  return componentRecord.parse({
    type: "other",
    name: s.id,
    description: "",
    longDescription: null,
    version: 1,
    complexity: null,
    categories: [],
    hasUI: false,
    hasRun: false,
    ico32: null,
    ico64: null,
    ico128: null,
    data: {
      definition: { type: "aws-ecr", uri: `147946154733.dkr.ecr.us-east-1.amazonaws.com/developer-portal-v2/${s.id}`, tag: "latest" },
      configuration_format: "json",
      default_bucket: false,
      staging_storage: { input: "local", output: "local" },
    },
    flags: [],
    configurationSchema: {},
    configurationRowSchema: {},
    emptyConfiguration: {},
    emptyConfigurationRow: {},
    uiOptions: {},
    configurationDescription: null,
    features: [],
    expiredOn: null,
    uri: `https://syrup.keboola.com/docker/${s.id}`,
    documentationUrl: null,
    ...s,
  });
}

/** Every component of the stack: the catalog, an added component replacing a catalog one of its id. */
export function stackComponents(storage: AddedComponents): ComponentRecord[] {
  const added = storage.addedComponents;
  const out = CATALOG.map((c) => added[c.id] ?? c);
  for (const c of Object.values(added)) if (!CATALOG.some((k) => k.id === c.id)) out.push(c);
  return out;
}

export function findComponent(storage: AddedComponents, id: string): ComponentRecord | undefined {
  return storage.addedComponents[id] ?? CATALOG.find((c) => c.id === id);
}

/**
 * The index's entry of a component. Without details, only the fields the Storage API reference
 * names for `?exclude=componentDetails` (storage-api-php-client apiary.apib, "Component List").
 */
export function indexEntry(c: ComponentRecord, details: boolean): Record<string, JsonValue> {
  if (details) return { ...c };
  return { id: c.id, name: c.name, type: c.type, ico64: c.ico64, ico128: c.ico128, features: c.features, flags: c.flags, description: c.description, categories: c.categories };
}

/**
 * The component part of the responses listing configurations. A component the stack does not
 * list (its configurations were created anyway) gets a neutral record of its id.
 */
export function componentDefinition(storage: AddedComponents, id: string): Record<string, JsonValue> {
  return indexEntry(findComponent(storage, id) ?? componentFromSpec({ id }), true);
}

/** Adds (or replaces) components in the state; a bad spec fails naming the component and the field. */
export function addComponents(storage: AddedComponents, specs: readonly ComponentSpec[]): void {
  for (const spec of specs) {
    const parsed = componentSpec.safeParse(spec);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const id = typeof spec?.id === "string" ? `"${spec.id}"` : "without an id";
      throw new Error(`emulator option components: component ${id}: ${issue.path.join(".") || "(the entry)"} ${issue.message}`);
    }
    storage.addedComponents[parsed.data.id] = componentFromSpec(parsed.data);
  }
}
