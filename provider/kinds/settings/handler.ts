import type { z } from "zod";
import { isNotFound, notFoundAsUndefined } from "../../api/errors";
import { checkWith, knownFields } from "../../validation/check";
import { streamBranchFailure } from "../../lifecycle/preflight";
import { changedSettings, overwrittenSettings, resetPatch, sameSetting, SETTINGS, settingsFromRemote, settingsPatch, type SettingsValues } from "../../validation/settings";
import type { AnyDefinition } from "../../lifecycle/define";
import type { CallContext, CheckResponse, Handler } from "../../lifecycle/call";

// The shared lifecycle of SourceSettings and SinkSettings: only the keys the user sets are
// managed; create and update PATCH them, delete resets them to the service defaults,
// read reports the managed keys as the service has them.

// A type, not an interface: state is a JSON record (Record<string, unknown>), which only a type's
// implicit index signature satisfies.
export type SettingsTarget = {
  branchId: string;
  sourceId: string;
  sinkId?: string;
};

/** What a settings resource's checked inputs and its state hold: where the settings are, and the managed keys. */
export type SettingsState = SettingsTarget & SettingsValues;

/**
 * The definition of a settings resource (SourceSettings, SinkSettings): its inputs and its state
 * parse into a SettingsState, so the handler reads and writes them as such.
 */
export type SettingsDefinition = AnyDefinition & { inputs: z.ZodType<SettingsState>; state: z.ZodType<SettingsState> };

export function settingsHandler(def: SettingsDefinition, label: string): Handler<SettingsDefinition> {
  const what = (name: string, t: SettingsTarget) => `${label} of ${t.sinkId ? `sink "${t.sourceId}/${t.sinkId}"` : `source "${t.sourceId}"`} (resource "${name}")`;
  const idOf = (t: SettingsTarget) => [t.branchId, t.sourceId, t.sinkId, "settings"].filter(Boolean).join("/");
  const target = (v: Partial<SettingsTarget>, id: string): SettingsTarget => {
    // State written by a half-finished create may lack the target: the id names it.
    const [branchId, sourceId, third] = id.split("/");
    const sinkId = v.sinkId ?? (third !== undefined && third !== "settings" ? third : undefined);
    // split() answers at least one part: the branch is never missing, the source may be ("").
    return { branchId: v.branchId ?? branchId, sourceId: v.sourceId ?? sourceId ?? "", ...(sinkId !== undefined ? { sinkId } : {}) };
  };

  async function apply(ctx: CallContext, p: SettingsState, olds?: SettingsValues): Promise<{ id: string; outs: SettingsState }> {
    const t = target(p, "");
    const stream = await ctx.client().stream();
    let patch = settingsPatch(p, olds);
    if (!olds && patch.length > 0 && !stream.createdHere(t.branchId, t.sourceId, t.sinkId)) {
      // A first apply (e.g. taking over an exported project) writes only the values that differ.
      // On a source or sink this process has just created, every managed key is written unread.
      const remote = (await stream.getSettings(t.branchId, t.sourceId, t.sinkId)).settings;
      patch = patch.filter((w) => !remote.some((r) => r.key === w.key && sameSetting(SETTINGS.find((d) => d.key === w.key)!, r.value, w.value)));
    }
    if (patch.length > 0) {
      const task = await stream.patchSettings(t.branchId, t.sourceId, t.sinkId, patch, "Updated by Pulumi.");
      await stream.runTask(task, what(ctx.call.name, t));
    }
    return { id: idOf(t), outs: p };
  }

  return {
    async check(req): Promise<CheckResponse> {
      const { olds, news } = req;
      // A value comes back only when the inputs have no problem (checkWith).
      const { value, failures } = checkWith(def, news);
      if (value) {
        const branch = await streamBranchFailure(req, value.branchId);
        if (branch) failures.push(branch);
      }
      // The source or sink must exist, unless this program creates it (then its ids may be unknown).
      const known = value && knownFields(value, ["branchId", "sourceId", "sinkId"]);
      if (known && failures.length === 0 && Object.keys(olds).length === 0 && !req.call.facts.declared) {
        const t = target(known, "");
        const stream = await req.client().stream();
        if (!(await notFoundAsUndefined(stream.getSettings(t.branchId, t.sourceId, t.sinkId)))) {
          const property = t.sinkId !== undefined ? "sinkId" : "sourceId";
          const missing = t.sinkId !== undefined ? `sink "${t.sinkId}" of source "${t.sourceId}"` : `source "${t.sourceId}"`;
          const kind = t.sinkId !== undefined ? "Sink" : "Source";
          // The resource class tells whether a resource of this program declares it (then the check does not ask).
          const here = req.call.facts.declared === false ? `, and no ${kind} of this program declares it` : "";
          failures.push({ property, reason: `${missing} does not exist in branch ${t.branchId}${here}: pass the ${property} of a ${kind} (for example ${t.sinkId !== undefined ? "raw.sinkId" : "events.sourceId"}), not its name` });
        }
      }
      return { inputs: value ? { ...news, ...value } : news, failures };
    },
    async diff(req) {
      const { olds, news } = req;
      const replaces = (["branchId", "sourceId", "sinkId"] as const).filter((k) => String(olds[k] ?? "") !== String(news[k] ?? ""));
      const changed = changedSettings(olds, news);
      return { changes: replaces.length + changed.length > 0, replaces };
    },
    create: (req) => apply(req, req.inputs),
    async update(req) {
      const { olds, news } = req;
      return { outs: (await apply(req, news, olds)).outs };
    },
    async read(req) {
      const { id, recorded } = req;
      const t = target(recorded, id);
      const stream = await req.client().stream();
      const remote = await notFoundAsUndefined(stream.getSettings(t.branchId, t.sourceId, t.sinkId));
      if (!remote) return { id: "" }; // the source or sink is gone, and its settings with it
      // Read from the id alone (`pulumi import`): the settings to manage are those set on the
      // source or sink, the ones the service reports as overwritten; the rest stay its defaults.
      const read = req.call.importing ? overwrittenSettings(remote.settings) : settingsFromRemote(remote.settings, recorded);
      const values: SettingsState = { ...t, ...read };
      return { id, props: values, inputs: values };
    },
    async delete(req) {
      const { id, recorded } = req;
      const t = target(recorded, id);
      const patch = resetPatch(recorded);
      if (patch.length === 0) return;
      const stream = await req.client().stream();
      try {
        await stream.runTask(await stream.patchSettings(t.branchId, t.sourceId, t.sinkId, patch, "Reset by Pulumi."), what(req.call.name, t));
      } catch (err) {
        if (!isNotFound(err)) throw err; // the source or sink is gone, and its settings with it
      }
    },
  };
}
