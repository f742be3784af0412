// Lookups: reading what a program does not manage (the provider plugin's Invoke; `keboola.getBucket`
// and the others in the generated SDKs, `fn::invoke` in YAML). Each lookup of an object that a kind
// manages answers what that kind's read gives from the object's id alone (the same read as
// `pulumi import`), so a lookup and an imported resource show the same properties, secrets kept secret.
import { z } from "zod";
import { optionalBranchSchema } from "../validation/ids";
import type { Props } from "../lifecycle/types";
import type { ResourceKind } from "../kinds/registry";
import type { CallContext } from "../lifecycle/call";
import { notFoundAsUndefined } from "../api/errors";

/** A lookup of the objects of one kind: its arguments, and how they address the object. */
export interface KindLookup {
  name: string;
  description: string;
  args: z.ZodObject;
  kind: ResourceKind;
  /** The id the kind's read takes and the state it starts from (the branch, where it matters). */
  address(args: Record<string, unknown>, ctx: CallContext): Promise<{ id: string; recorded: Props } | undefined>;
}

/** A lookup answered on its own (not an object of a kind). */
export interface OwnLookup {
  name: string;
  description: string;
  args: z.ZodObject;
  outputs: z.ZodObject;
  run(args: Record<string, unknown>, ctx: CallContext): Promise<Props | undefined>;
}

export type Lookup = KindLookup | OwnLookup;

const branch = optionalBranchSchema;
const inBranch = (a: Record<string, unknown>): Props => ({ branchId: a.branchId === undefined ? "default" : String(a.branchId) });

export const LOOKUPS: readonly Lookup[] = [
  {
    name: "getBucket",
    description: "A Storage bucket by its id, e.g. in.c-sales: its stage, name, display name and description.",
    args: z.strictObject({ bucketId: z.string().describe("The bucket's id, e.g. in.c-sales."), branchId: branch }),
    kind: "bucket",
    address: async (a) => ({ id: String(a.bucketId), recorded: inBranch(a) }),
  },
  {
    name: "getTable",
    description: "A Storage table by its id, e.g. in.c-sales.orders: its columns, their types (a typed table's definition) and primary key.",
    args: z.strictObject({ tableId: z.string().describe("The table's id, e.g. in.c-sales.orders."), branchId: branch }),
    kind: "table",
    address: async (a) => ({ id: String(a.tableId), recorded: inBranch(a) }),
  },
  {
    name: "getSource",
    description: "A Stream source by its sourceId: its name, type and ingestion URL (a secret).",
    args: z.strictObject({ sourceId: z.string().describe("The source's sourceId."), branchId: branch }),
    kind: "source",
    address: async (a) => ({ id: String(a.sourceId), recorded: { ...inBranch(a), sourceId: String(a.sourceId) } }),
  },
  {
    name: "getBranch",
    description: "A development branch by its numeric id or by its name.",
    args: z.strictObject({
      branchId: z.string().optional().describe("The branch's numeric id."),
      name: z.string().optional().describe("The branch's name (when branchId is not given)."),
    }),
    kind: "branch",
    async address(a, ctx) {
      if (a.branchId !== undefined) return { id: String(a.branchId), recorded: {} };
      if (a.name === undefined) throw new Error("give branchId or name");
      const found = (await ctx.client().storage.devBranches()).find((b) => b.name === a.name && !b.isDefault);
      return found ? { id: String(found.id), recorded: {} } : undefined;
    },
  },
  {
    name: "getComponent",
    description: "A component of the stack's catalog: its name, type, flags and the JSON Schemas of its configuration and rows.",
    args: z.strictObject({ componentId: z.string().describe("The component's id, e.g. keboola.ex-generic-v2.") }),
    outputs: z.object({
      componentId: z.string().describe("The component's id."),
      name: z.string().describe("The component's name."),
      type: z.string().describe("Its type: extractor, writer, transformation, application, ..."),
      description: z.string().describe("Its short description."),
      flags: z.array(z.string()).describe("Its flags, e.g. genericDockerUI."),
      configurationSchema: z.json().describe("JSON Schema of its configuration's parameters (empty when it has none)."),
      configurationRowSchema: z.json().describe("JSON Schema of its rows' parameters (empty when it has none)."),
    }),
    async run(a, ctx) {
      const c = await notFoundAsUndefined(ctx.client().storage.component(String(a.componentId)));
      if (!c) return undefined;
      return {
        componentId: c.id,
        name: c.name,
        type: c.type,
        description: c.description ?? "",
        flags: c.flags ?? [],
        configurationSchema: c.configurationSchema ?? {},
        configurationRowSchema: c.configurationRowSchema ?? {},
      };
    },
  },
];

export const isKindLookup = (l: Lookup): l is KindLookup => "kind" in l;
