import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import type * as dynamic from "@pulumi/pulumi/dynamic";
import type { StreamApi, StreamSource } from "../api/stream";
import { notFoundAsUndefined } from "../api/errors";
import { createOnce } from "./stream-create";
import { checkWith, containsUnknown, parseChecked } from "../validation/check";
import { show } from "../validation/messages";
import { branchFailure, isNew, sourceSlotFailure } from "./preflight";
import { branchSchema, descriptionSchema, normalizeId, streamIdSchema, streamNameSchema } from "../validation/ids";
import { diffFields, resourceArgs, resourceName, withProvider, type ArgsOf } from "./common";
import kindProvider from "../kinds/source";
import { PartialFailure, type Props, type ResourceHandler } from "./types";
import { markedLengthFailure, ownerOf, splitMarker, withMarker } from "./ownership";
import { declareSource, declaredSource } from "./program";

// A Stream source: an HTTP (or OTLP) endpoint that receives events. Name, description and type
// update in place; a new sourceId or branch replaces it. The ingestion URL is a credential and
// is stored only as a secret output.


export const sourceInputsSchema = z
  .object({
    branchId: branchSchema,
    sourceId: streamIdSchema("source"),
    name: streamNameSchema,
    description: descriptionSchema,
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
    declareSource(name, args);
    super(...resourceArgs(kindProvider, "Source", name, args, OUTPUTS, SECRET_OUTPUTS, opts));
    declaredSource(args, this);
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
    description: splitMarker(s.description).text,
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

/** Brings an existing source to the declared state; its description gets this resource's owner marker. */
async function converge(stream: StreamApi, branch: string, p: Parsed & { sourceId: string }, current: StreamSource, label: string, owner: string | undefined) {
  const changes: Record<string, unknown> = {};
  const description = withMarker(p.description, owner ?? splitMarker(current.description).owner);
  if (current.name !== p.name) changes.name = p.name;
  if (current.description !== description) changes.description = description;
  if (current.type !== p.type) changes.type = p.type;
  if (Object.keys(changes).length === 0) return current;
  await stream.runTask(await stream.updateSource(branch, p.sourceId, { ...changes, changeDescription: "Updated by Pulumi." }), label);
  return stream.getSource(branch, p.sourceId);
}

export const handler: ResourceHandler = {
  async check(ctx, olds, news): Promise<dynamic.CheckResult> {
    const { value, failures } = checkWith(sourceInputsSchema, news);
    if (!value) return { inputs: news, failures };
    const tooLong = markedLengthFailure("description", value.description, ownerOf(news), 4096);
    if (tooLong) failures.push(tooLong);
    const sourceId = resolveId(value, olds);
    if (sourceId === "") {
      failures.push({ property: "name", reason: `${show(value.name)} has no Latin letter or digit to derive the source id from (the service would refuse it): set sourceId, e.g. sourceId: "app-events"` });
    }
    // Against the stack, only what is known: a new source's id must be free (or ours), the branch must exist and have room.
    if (failures.length === 0 && !containsUnknown([news.branchId, news.sourceId, news.name])) {
      const branch = await branchFailure(ctx, value.branchId);
      const taken = branch ?? (isNew(olds, "sourceId") ? await sourceSlotFailure(ctx, { ...value, sourceId }, ownerOf(news), value.sourceId ? "sourceId" : "name") : undefined);
      if (taken) failures.push(taken);
    }
    return { inputs: { ...news, ...value, sourceId }, failures };
  },

  async diff(_ctx, _id, olds, news) {
    const o = { ...olds, branchId: olds.branch };
    return diffFields(o, news, { update: ["name", "description", "type"], replace: ["sourceId", "branchId"] });
  },

  async create(ctx, inputs) {
    const p = { ...parseChecked(sourceInputsSchema, inputs, "Source"), sourceId: String(inputs.sourceId) };
    const stream = await ctx.client().stream();
    const label = what(inputs, p.sourceId);
    const owner = ownerOf(inputs);
    const body = { sourceId: p.sourceId, type: p.type, name: p.name, description: withMarker(p.description, owner) };
    const created = await createOnce({
      label,
      where: `in branch ${p.branchId}`,
      owner,
      adoptExisting: p.adoptExisting,
      find: () => stream.findSource(p.branchId, p.sourceId),
      ownerOf: (s) => splitMarker(s.description).owner,
      create: () => stream.createSource(p.branchId, body),
      runTask: (task) => stream.runTask(task, label),
      leftBehind: (left, err) => {
        throw new PartialFailure(err.message, idOf(left), withProvider(outputs(p, left), inputs));
      },
      fix: "Choose another sourceId (or name), or set adoptExisting: true to take this source over (it is then brought to the declared state).",
    });
    let source = created.object;
    if (created.existed) {
      try {
        source = await converge(stream, p.branchId, p, source, label, owner);
      } catch (err) {
        throw new PartialFailure((err as Error).message, idOf(source), withProvider(outputs(p, source), inputs));
      }
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
    const inputs = { branchId: branch, sourceId, name: s.name, description: splitMarker(s.description).text, type: s.type, adoptExisting };
    return { id: idOf(s), props: outs, inputs };
  },

  async update(ctx, _id, _olds, news) {
    const p = { ...parseChecked(sourceInputsSchema, news, "Source"), sourceId: String(news.sourceId) };
    const stream = await ctx.client().stream();
    const label = what(news, p.sourceId);
    const current = await stream.findSource(p.branchId, p.sourceId);
    if (!current) throw new Error(`${label} no longer exists: run \`pulumi refresh\` to recreate it`);
    return { outs: outputs(p, await converge(stream, p.branchId, p, current, label, ownerOf(news))) };
  },

  async delete(ctx, _id, props) {
    const stream = await ctx.client().stream();
    const branch = String(props.branch ?? "default");
    const sourceId = String(props.sourceId);
    const task = await notFoundAsUndefined(stream.deleteSource(branch, sourceId)); // undefined: already gone
    if (task) await stream.runTask(task, what(props, sourceId));
  },
};

const idOf = (s: StreamSource) => `${s.branchId}/${s.sourceId}`;
