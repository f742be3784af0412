import type { z } from "zod";
import type * as dynamic from "@pulumi/pulumi/dynamic";
import { isNotFound, notFoundAsUndefined } from "../api/errors";
import { checkWith, containsUnknown, parseChecked, userInputs } from "../validation/check";
import { programFacts } from "./preflight";
import { changedSettings, resetPatch, sameSetting, SETTINGS, settingsFromRemote, settingsPatch, type SettingsValues } from "../validation/settings";
import { resourceName } from "./common";
import type { Props, ResourceHandler } from "./types";

// The shared lifecycle of SourceSettings and SinkSettings: only the keys the user sets are
// managed; create and update PATCH them, delete resets them (null = the service default),
// read reports the managed keys as the service has them.

export interface SettingsTarget {
  branchId: string;
  sourceId: string;
  sinkId?: string;
}

export function settingsHandler<S extends z.ZodType<SettingsValues & SettingsTarget>>(schema: S, label: string): ResourceHandler {
  const what = (props: Props, t: SettingsTarget) =>
    `${label} of ${t.sinkId ? `sink "${t.sourceId}/${t.sinkId}"` : `source "${t.sourceId}"`} (resource "${resourceName(props)}")`;
  const idOf = (t: SettingsTarget) => [t.branchId, t.sourceId, t.sinkId, "settings"].filter(Boolean).join("/");
  const parse = (props: Props) => parseChecked(schema, props, label) as SettingsValues & SettingsTarget;
  const target = (props: Props): SettingsTarget => ({
    branchId: String(props.branchId ?? "default"),
    sourceId: String(props.sourceId),
    ...(props.sinkId !== undefined ? { sinkId: String(props.sinkId) } : {}),
  });

  async function apply(ctx: Parameters<ResourceHandler["create"]>[0], props: Props, olds?: Props) {
    const p = parse(props);
    const t = target(p as unknown as Props);
    const stream = await ctx.client().stream();
    let patch = settingsPatch(p, olds ? (parse(olds) as SettingsValues) : undefined);
    if (!olds && patch.length > 0) {
      // A first apply (e.g. taking over an exported project) writes only the values that differ.
      const remote = (await stream.getSettings(t.branchId, t.sourceId, t.sinkId)).settings;
      patch = patch.filter((w) => !remote.some((r) => r.key === w.key && sameSetting(SETTINGS.find((d) => d.key === w.key)!, r.value, w.value)));
    }
    if (patch.length > 0) {
      const task = await stream.patchSettings(t.branchId, t.sourceId, t.sinkId, patch, "Updated by Pulumi.");
      await stream.runTask(task, what(props, t));
    }
    return { id: idOf(t), outs: { ...userInputs(props), branchId: t.branchId } };
  }

  return {
    async check(ctx, olds, news): Promise<dynamic.CheckResult> {
      const { value, failures } = checkWith(schema, news);
      if (value && failures.length === 0 && Object.keys(olds).length === 0 && !programFacts(news).declared && !containsUnknown([news.branchId, news.sourceId, news.sinkId])) {
        // The source or sink must exist, unless this program creates it.
        const t = target(value as unknown as Props);
        const stream = await ctx.client().stream();
        if (!(await notFoundAsUndefined(stream.getSettings(t.branchId, t.sourceId, t.sinkId)))) {
          const property = t.sinkId !== undefined ? "sinkId" : "sourceId";
          const missing = t.sinkId !== undefined ? `sink "${t.sinkId}" of source "${t.sourceId}"` : `source "${t.sourceId}"`;
          failures.push({ property, reason: `${missing} does not exist in branch ${t.branchId}: pass the ${property} of a ${t.sinkId !== undefined ? "Sink" : "Source"} (for example ${t.sinkId !== undefined ? "raw.sinkId" : "events.sourceId"}), not its name` });
        }
      }
      return { inputs: value ? { ...news, ...(value as object) } : news, failures };
    },
    async diff(_ctx, _id, olds, news) {
      const replaces = ["branchId", "sourceId", "sinkId"].filter((k) => String(olds[k] ?? "") !== String(news[k] ?? ""));
      const changed = changedSettings(olds as SettingsValues, news as SettingsValues);
      return { changes: replaces.length + changed.length > 0, replaces };
    },
    create: (ctx, inputs) => apply(ctx, inputs),
    async update(ctx, _id, olds, news) {
      return { outs: (await apply(ctx, news, olds)).outs };
    },
    async read(ctx, id, props) {
      const t = target(props);
      const stream = await ctx.client().stream();
      const remote = await notFoundAsUndefined(stream.getSettings(t.branchId, t.sourceId, t.sinkId));
      if (!remote) return { id: "" }; // the source or sink is gone, and its settings with it
      const values = settingsFromRemote(remote.settings, props as SettingsValues);
      const inputs = { ...t, ...values };
      return { id, props: inputs, inputs };
    },
    async delete(ctx, _id, props) {
      const t = target(props);
      const patch = resetPatch(props as SettingsValues);
      if (patch.length === 0) return;
      const stream = await ctx.client().stream();
      try {
        await stream.runTask(await stream.patchSettings(t.branchId, t.sourceId, t.sinkId, patch, "Reset by Pulumi."), what(props, t));
      } catch (err) {
        if (!isNotFound(err)) throw err; // the source or sink is gone, and its settings with it
      }
    },
  };
}
