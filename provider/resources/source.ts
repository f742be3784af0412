import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import type * as dynamic from "@pulumi/pulumi/dynamic";
import type { StreamApi, StreamSource } from "../api/stream";
import { KeboolaNetworkError, isConflict, isNotFound } from "../api/errors";
import { checkWith, parseChecked } from "../validation/check";
import { MAX_DESCRIPTION_LENGTH, MAX_ID_LENGTH, MAX_NAME_LENGTH, normalizeId } from "../validation/ids";
import { diffFields, resourceArgs, resourceName, withProvider, type ArgsOf } from "./common";
import { PartialFailure, type Props, type ResourceHandler } from "./types";

// A Stream source: an HTTP (or OTLP) endpoint that receives events. Name, description and type
// update in place; a new sourceId or branch replaces it. The ingestion URL is a credential and
// is stored only as a secret output.

export const branchSchema = z
  .union([z.string().regex(/^(default|\d+)$/, 'must be "default" or a numeric branch id'), z.number().int().positive()])
  .transform(String)
  .default("default")
  .describe('Branch: "default" or the numeric id of a dev branch.');

export const sourceInputsSchema = z
  .object({
    branchId: branchSchema,
    sourceId: z
      .string()
      .min(1, "must not be empty: omit it to derive the id from name")
      .max(MAX_ID_LENGTH, `must be at most ${MAX_ID_LENGTH} characters`)
      .refine((id) => normalizeId(id) === id, {
        message: "must be lowercase letters, digits and single dashes (the service would rename it): write it normalized",
      })
      .optional()
      .describe("Source id; derived from name (kebab-case) when omitted. Changing it replaces the source."),
    name: z.string().min(1, "must not be empty").max(MAX_NAME_LENGTH, `must be at most ${MAX_NAME_LENGTH} characters: shorten it`),
    description: z.string().max(MAX_DESCRIPTION_LENGTH, `must be at most ${MAX_DESCRIPTION_LENGTH} characters`).default(""),
    type: z.enum(["http", "otlp"], { message: 'must be "http" or "otlp"' }).default("http"),
    adoptExisting: z
      .boolean()
      .default(false)
      .describe("Take over an existing source with the same id instead of failing with 409 (it is brought to the declared state)."),
  })
  .strict();

export type SourceInputs = z.input<typeof sourceInputsSchema>;

/** What a Source has besides its inputs. */
export const sourceOutputsSchema = z.object({
  sourceId: z.string().describe("The source id."),
  branchId: z.number().int().describe("Numeric id of the branch."),
  projectId: z.number().int().describe("Keboola project id."),
  url: z.string().describe("Ingestion URL: POST events here. Secret."),
  baseUrl: z.string().optional().describe("OTLP base URL (OTLP sources). Secret."),
  secret: z.string().optional().describe("OTLP secret (OTLP sources). Secret."),
});
type Parsed = z.output<typeof sourceInputsSchema>;

const OUTPUTS = ["sourceId", "branchId", "projectId", "branch", "url", "baseUrl", "secret", "description", "type"] as const;
const SECRET_OUTPUTS = ["url", "baseUrl", "secret"] as const;

export interface SourceArgs extends ArgsOf<SourceInputs> {}

export class Source extends pulumi.dynamic.Resource {
  declare readonly sourceId: pulumi.Output<string>;
  /** Numeric id of the branch. */
  declare readonly branchId: pulumi.Output<number>;
  declare readonly projectId: pulumi.Output<number>;
  declare readonly name: pulumi.Output<string>;
  declare readonly description: pulumi.Output<string>;
  declare readonly type: pulumi.Output<"http" | "otlp">;
  /** Ingestion URL (secret). */
  declare readonly url: pulumi.Output<string>;
  /** OTLP base URL (secret; OTLP sources only). */
  declare readonly baseUrl: pulumi.Output<string | undefined>;
  /** OTLP secret (OTLP sources only). */
  declare readonly secret: pulumi.Output<string | undefined>;

  constructor(name: string, args: SourceArgs, opts?: pulumi.CustomResourceOptions) {
    super(...resourceArgs("source", "Source", name, args, OUTPUTS, SECRET_OUTPUTS, opts));
  }
}

/** Source id: explicit, else kept from the previous state (a rename keeps the id), else derived from name. */
function resolveId(parsed: Parsed, olds: Props): string {
  if (parsed.sourceId) return parsed.sourceId;
  if (typeof olds.sourceId === "string" && olds.sourceId) return olds.sourceId;
  return normalizeId(parsed.name);
}

function outputs(inputs: { branchId: string; adoptExisting: boolean }, s: StreamSource): Props {
  return {
    branch: inputs.branchId,
    sourceId: s.sourceId,
    name: s.name,
    description: s.description,
    type: s.type,
    adoptExisting: inputs.adoptExisting,
    branchId: s.branchId,
    projectId: s.projectId,
    url: s.type === "otlp" ? s.otlp?.url : s.http?.url,
    baseUrl: s.otlp?.baseUrl,
    secret: s.otlp?.secret,
  };
}

const what = (props: Props, id: string) => `Source "${id}" (resource "${resourceName(props)}")`;

async function converge(stream: StreamApi, branch: string, p: Parsed & { sourceId: string }, current: StreamSource, label: string) {
  const changes: Record<string, unknown> = {};
  if (current.name !== p.name) changes.name = p.name;
  if (current.description !== p.description) changes.description = p.description;
  if (current.type !== p.type) changes.type = p.type;
  if (Object.keys(changes).length === 0) return current;
  await stream.runTask(await stream.updateSource(branch, p.sourceId, { ...changes, changeDescription: "Updated by Pulumi." }), label);
  return stream.getSource(branch, p.sourceId);
}

export const handler: ResourceHandler = {
  async check(_ctx, olds, news): Promise<dynamic.CheckResult> {
    const { value, failures } = checkWith(sourceInputsSchema, news);
    if (!value) return { inputs: news, failures };
    return { inputs: { ...news, ...value, sourceId: resolveId(value, olds) }, failures };
  },

  async diff(_ctx, _id, olds, news) {
    const o = { ...olds, branchId: olds.branch };
    return diffFields(o, news, { update: ["name", "description", "type"], replace: ["sourceId", "branchId"] });
  },

  async create(ctx, inputs) {
    const p = { ...parseChecked(sourceInputsSchema, inputs, "Source"), sourceId: String(inputs.sourceId) };
    const stream = await ctx.client().stream();
    const label = what(inputs, p.sourceId);
    const existing = await stream.findSource(p.branchId, p.sourceId);
    if (existing && !p.adoptExisting) {
      throw new Error(
        `${label} already exists in branch ${p.branchId}. Choose another sourceId, or set adoptExisting: true to take it over (it will be updated to the declared state).`,
      );
    }
    let source: StreamSource;
    if (existing) {
      source = await converge(stream, p.branchId, p, existing, label);
    } else {
      const body = { sourceId: p.sourceId, type: p.type, name: p.name, description: p.description };
      let task;
      try {
        task = await stream.createSource(p.branchId, body);
      } catch (err) {
        // The create may have reached the service. Read by id; if it is not there, ask again:
        // a 409 then means our first request is being processed.
        if (!(err instanceof KeboolaNetworkError) || !err.ambiguous) throw err;
        if (!(await stream.findSource(p.branchId, p.sourceId))) {
          try {
            task = await stream.createSource(p.branchId, body);
          } catch (again) {
            if (!isConflict(again)) throw again;
          }
        }
      }
      try {
        if (task) await stream.runTask(task, label);
      } catch (err) {
        const left = await stream.findSource(p.branchId, p.sourceId);
        if (left) throw new PartialFailure(String((err as Error).message), idOf(left), withProvider(outputs(p, left), inputs));
        throw err;
      }
      source = await waitVisible(stream, p.branchId, p.sourceId, label);
    }
    return { id: idOf(source), outs: outputs(p, source) };
  },

  async read(ctx, id, props) {
    const stream = await ctx.client().stream();
    const branch = String(props.branch ?? "default");
    const sourceId = String(props.sourceId ?? id.split("/").pop());
    const s = await stream.findSource(branch, sourceId);
    if (!s) return { id: "" };
    const adoptExisting = props.adoptExisting === true;
    const outs = outputs({ branchId: branch, adoptExisting }, s);
    const inputs = { branchId: branch, sourceId, name: s.name, description: s.description, type: s.type, adoptExisting };
    return { id: idOf(s), props: outs, inputs };
  },

  async update(ctx, _id, _olds, news) {
    const p = { ...parseChecked(sourceInputsSchema, news, "Source"), sourceId: String(news.sourceId) };
    const stream = await ctx.client().stream();
    const label = what(news, p.sourceId);
    const current = await stream.findSource(p.branchId, p.sourceId);
    if (!current) throw new Error(`${label} no longer exists: run \`pulumi refresh\` to recreate it`);
    return { outs: outputs(p, await converge(stream, p.branchId, p, current, label)) };
  },

  async delete(ctx, _id, props) {
    const stream = await ctx.client().stream();
    const branch = String(props.branch ?? "default");
    const sourceId = String(props.sourceId);
    const task = await stream.deleteSource(branch, sourceId).catch((err: unknown) => {
      if (isNotFound(err)) return undefined; // already gone
      throw err;
    });
    if (task) await stream.runTask(task, what(props, sourceId));
  },
};

const idOf = (s: StreamSource) => `${s.branchId}/${s.sourceId}`;

/** After the create task, the source is readable; poll briefly in case of an eventually consistent read. */
async function waitVisible(stream: StreamApi, branch: string, sourceId: string, label: string): Promise<StreamSource> {
  for (let i = 0, delay = 50; ; i++, delay = Math.min(delay * 2, 1000)) {
    const s = await stream.findSource(branch, sourceId);
    if (s) return s;
    if (i >= 10) throw new Error(`${label} was created but cannot be read back`);
    await new Promise((r) => setTimeout(r, delay));
  }
}
