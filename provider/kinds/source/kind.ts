import { z } from "zod";
import type { StreamApi, StreamSource } from "../../api/stream";
import { isAmbiguous, notFoundAsUndefined, asError } from "../../api/errors";
import { createStreamObject } from "../../lifecycle/stream-create";
import { checkWith, isUnknown, knownFields } from "../../validation/check";
import { show } from "../../validation/messages";
import { isNew, streamBranchFailure, sourceSlotFailure } from "../../lifecycle/preflight";
import { branchSchema, descriptionSchema, streamIdSchema, streamObjectId, streamNameSchema } from "../../validation/ids";
import { defineResource, replaces, secret, untracked, type CheckedOf, type InputsOf, type StateOf } from "../../lifecycle/define";
import type { CheckResponse, Handler } from "../../lifecycle/call";
import { PartialFailure } from "../../lifecycle/types";
import { markedLengthFailure, splitMarker, withMarker } from "../../lifecycle/ownership";

// A Stream source: an HTTP (or OTLP) endpoint that receives events. Name, description and type
// update in place; a new sourceId or branch replaces it. The ingestion URL is a credential and
// is stored only as a secret output.


export const source = defineResource({
  type: "Source",
  description: "A Stream source: an HTTP or OTLP endpoint receiving events.",
  inputs: {
    branchId: replaces(branchSchema),
    sourceId: replaces(streamIdSchema("source")),
    name: streamNameSchema,
    description: descriptionSchema,
    type: z.enum(["http", "otlp"], { message: 'must be "http" or "otlp"' }).default("http").describe('"http" (events as HTTP requests) or "otlp" (OpenTelemetry signals).'),
    enabled: z
      .boolean()
      .default(true)
      .describe("A disabled source accepts no events and disables its sinks with it; enabling it enables them again."),
    rotateSecret: z
      .string()
      .optional()
      .describe(
        "Change this value to rotate the source's ingestion secret in place: the url output changes and the old URL is refused at once. " +
          "A rotation already made since the recorded state (an answer lost, an interrupted run) is not repeated.",
      ),
    adoptExisting: untracked(
      z.boolean().default(false).describe("Take over an existing source with the same id instead of failing with 409 (it is brought to the declared state)."),
    ),
  },
  outputs: {
    sourceId: z.string().describe("The source id (given, or derived from the name)."),
    projectId: z.number().int().describe("Keboola project id."),
    url: secret(z.string().describe("Ingestion URL: POST events here. Secret.")),
    baseUrl: secret(z.string().optional().describe("OTLP base URL (OTLP sources). Secret.")),
    secret: secret(z.string().optional().describe("OTLP secret (OTLP sources). Secret.")),
  },
  // Up to 0.2, `branchId` held the numeric branch and the declared one was kept as `branch`.
  // Up to 0.2, `enabled` was not recorded: every source was enabled.
  upgrade: ({ branch, ...old }) => ({ enabled: true, ...(typeof branch === "string" ? { ...old, branchId: branch } : old) }),
});

/** Kept for the manifest's schema: the inputs of a Source. */
export const sourceInputsSchema = source.inputs;
export type SourceInputs = InputsOf<typeof source>;
type Parsed = CheckedOf<typeof source>;
type State = StateOf<typeof source>;



/** The declaration a source of the service amounts to: what read records and export writes (manifest/export.ts). */
export function sourceFromRemote(s: StreamSource) {
  return { sourceId: s.sourceId, name: s.name, description: splitMarker(s.description).text, type: s.type, enabled: !s.disabled };
}

function stateOf(p: Pick<Parsed, "branchId" | "adoptExisting" | "rotateSecret">, s: StreamSource): State {
  return {
    branchId: p.branchId,
    ...sourceFromRemote(s),
    rotateSecret: p.rotateSecret, // left out of the state when undefined (runtime.ts withIdentity)
    adoptExisting: p.adoptExisting,
    projectId: s.projectId,
    url: urlOf(s),
    baseUrl: s.otlp?.baseUrl,
    secret: s.otlp?.secret,
  };
}

/** The ingestion URL: it embeds the source's secret, so it changes exactly when the secret does. */
const urlOf = (s: StreamSource): string => (s.type === "otlp" ? s.otlp?.url : s.http?.url) ?? "";

/**
 * Rotates the ingestion secret once. `before` is the URL the rotation must replace: the one recorded
 * in state (else the one read now). When the source no longer has it, a rotation already happened
 * (this call's answer was lost, or an interrupted run rotated and could not record it) and is not
 * repeated; an ambiguous failure is settled by reading the source back.
 */
async function rotateOnce(stream: StreamApi, p: Parsed & { sourceId: string }, current: StreamSource, before: string, label: string): Promise<StreamSource> {
  for (let attempt = 1; ; attempt++) {
    if (urlOf(current) !== before) return current;
    try {
      return await stream.rotateSourceSecret(p.branchId, p.sourceId);
    } catch (err) {
      if (!isAmbiguous(err) || attempt >= 3) throw new Error(`${label}: rotating its ingestion secret failed: ${asError(err).message}`);
      current = await stream.getSource(p.branchId, p.sourceId);
    }
  }
}

const what = (name: string, id: string) => `Source "${id}" (resource "${name}")`;

/** Brings an existing source to the declared state; its description gets this resource's owner marker. */
async function converge(stream: StreamApi, p: Parsed & { sourceId: string }, current: StreamSource, label: string, owner: string | undefined) {
  const changes: Record<string, unknown> = {};
  const description = withMarker(p.description, owner ?? splitMarker(current.description).owner);
  if (current.name !== p.name) changes.name = p.name;
  if (current.description !== description) changes.description = description;
  if (current.type !== p.type) changes.type = p.type;
  const switches = !current.disabled !== p.enabled;
  if (Object.keys(changes).length === 0 && !switches) return current;
  if (Object.keys(changes).length > 0) {
    await stream.runTask(await stream.updateSource(p.branchId, p.sourceId, { ...changes, changeDescription: "Updated by Pulumi." }), label);
  }
  if (switches) {
    // A task each way (keboola-as-code `api/stream/design.go` DisableSource/EnableSource); repeating one is harmless.
    await stream.runTask(await (p.enabled ? stream.enableSource(p.branchId, p.sourceId) : stream.disableSource(p.branchId, p.sourceId)), label);
  }
  return stream.getSource(p.branchId, p.sourceId);
}

/** The id the create and update calls address: check always settles it. */
const settled = (p: Parsed): Parsed & { sourceId: string } => ({ ...p, sourceId: streamObjectId(p.sourceId, p.name) });

export const handler: Handler<typeof source> = {
  async check(req): Promise<CheckResponse> {
    const { olds, news } = req;
    const { value, failures } = checkWith(source, news);
    if (!value) return { inputs: news, failures };
    const tooLong = markedLengthFailure("description", value.description, req.call.owner, 4096);
    if (tooLong) failures.push(tooLong);
    const sourceId = streamObjectId(value.sourceId, value.name, olds.sourceId);
    if (sourceId === "") {
      failures.push({ property: "name", reason: `${show(value.name)} has no Latin letter or digit to derive the source id from (the service would refuse it): set sourceId, e.g. sourceId: "app-events"` });
    }
    // Against the stack, each check on what it needs when it is known: the branch exists; a new
    // source's id (given, or derived from its name) is free or ours, and the branch has room.
    const slot = knownFields({ ...value, sourceId }, ["branchId", "sourceId", "adoptExisting"]);
    if (failures.length === 0) {
      const branch = await streamBranchFailure(req, value.branchId);
      const taken = branch ?? (slot && !isUnknown(value.name) && isNew(olds, { branchId: slot.branchId, sourceId: slot.sourceId }) ? await sourceSlotFailure(req, slot, req.call.owner, value.sourceId ? "sourceId" : "name") : undefined);
      if (taken) failures.push(taken);
    }
    return { inputs: { ...news, ...value, sourceId }, failures };
  },

  async create(req) {
    const { inputs } = req;
    const p = settled(inputs);
    const stream = await req.client().stream();
    const label = what(req.call.name, p.sourceId);
    const owner = req.call.owner;
    const body = { sourceId: p.sourceId, type: p.type, name: p.name, description: withMarker(p.description, owner) };
    const created = await createStreamObject({
      label,
      where: `in branch ${p.branchId}`,
      owner,
      adoptExisting: p.adoptExisting,
      find: () => stream.findSource(p.branchId, p.sourceId),
      ownerOf: (s) => splitMarker(s.description).owner,
      create: () => stream.createSource(p.branchId, body),
      runTask: (task) => stream.runTask(task, label),
      leftBehind: (left, err) => {
        throw new PartialFailure(err.message, idOf(left), stateOf(p, left));
      },
      fix: "Choose another sourceId (or name), or set adoptExisting: true to take this source over (it is then brought to the declared state).",
    });
    // A taken-over source is brought to the declared state; a new one is created enabled and disabled
    // after (converge writes nothing to one already as declared).
    const made = created.object;
    try {
      const current = await converge(stream, p, made, label, owner);
      return { id: idOf(current), outs: stateOf(p, current) };
    } catch (err) {
      throw new PartialFailure(asError(err).message, idOf(made), stateOf(p, made));
    }
  },

  async read(req) {
    const { id, recorded } = req;
    const stream = await req.client().stream();
    const { branchId, sourceId } = addressed(id, recorded);
    const s = await stream.findSource(branchId, sourceId);
    if (!s) return { id: "" };
    const state = stateOf({ branchId, adoptExisting: recorded.adoptExisting ?? false, rotateSecret: recorded.rotateSecret }, s);
    const { projectId: _p, url: _u, baseUrl: _b, secret: _s, ...inputs } = state;
    return { id: idOf(s), props: state, inputs };
  },

  async update(req) {
    const { olds, news } = req;
    const p = settled(news);
    const stream = await req.client().stream();
    const label = what(req.call.name, p.sourceId);
    const found = await stream.findSource(p.branchId, p.sourceId);
    if (!found) throw new Error(`${label} no longer exists: run \`pulumi refresh\` to recreate it`);
    const before = olds.url || urlOf(found);
    let current = await converge(stream, p, found, label, req.call.owner);
    if (p.rotateSecret !== undefined && p.rotateSecret !== olds.rotateSecret) {
      try {
        current = await rotateOnce(stream, p, current, before, label);
      } catch (err) {
        // The other changes are made: state records them, and the rotation is asked for again next time.
        throw new PartialFailure(asError(err).message, idOf(current), stateOf({ ...p, rotateSecret: olds.rotateSecret }, current));
      }
    }
    return { outs: stateOf(p, current) };
  },

  async delete(req) {
    const { id, recorded } = req;
    const stream = await req.client().stream();
    const { branchId, sourceId } = addressed(id, recorded);
    const task = await notFoundAsUndefined(stream.deleteSource(branchId, sourceId)); // undefined: already gone
    if (task) await stream.runTask(task, what(req.call.name, sourceId));
  },
};

/** The source a resource addresses: as its state records it, else as its id (`branch/source`) names it. */
const addressed = (id: string, recorded: Partial<State>) => ({ branchId: recorded.branchId ?? "default", sourceId: recorded.sourceId ?? id.split("/").pop() ?? id });

const idOf = (s: StreamSource) => `${s.branchId}/${s.sourceId}`;

export const definition = source;
