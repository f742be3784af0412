// The plugin's own configuration: CheckConfig, DiffConfig and Configure. The settings are the
// dynamic resources' stack config (`keboola:host`, `keboola:token`, ...; config.ts CONFIG_KEYS,
// with the same environment fallbacks), given either as stack config (the default provider) or as
// an explicit provider resource's arguments; what is configured wins over the environment
// (config.ts resolveSettings), so two explicit providers keep to their own projects whatever
// KBC_TOKEN says.
import * as proto from "@pulumi/pulumi/proto/provider_pb";
import { CONFIG_KEYS, layered, settingProblem, type ConfigSource } from "../config";
import { isUnknown } from "../validation/check";
import { fromStruct, toStruct, unmarked } from "./values";
import { PACKAGE } from "./package-schema";

const NAMES = Object.keys(CONFIG_KEYS);
/** Provider arguments the engine itself adds (a provider resource's `version`, `pluginDownloadURL`). */
const ENGINE_KEYS = new Set(["version", "pluginDownloadURL"]);

/** Failures of a provider configuration: unknown settings and numbers that are not what the setting takes. */
export function configFailures(args: Record<string, unknown>): Array<{ property: string; reason: string }> {
  const failures: Array<{ property: string; reason: string }> = [];
  for (const [key, value] of Object.entries(args)) {
    if (key.startsWith("__") || ENGINE_KEYS.has(key)) continue;
    if (!NAMES.includes(key)) {
      failures.push({ property: key, reason: `is not a setting of the ${PACKAGE} provider; its settings are ${NAMES.join(", ")}` });
      continue;
    }
    const problem = value === undefined || isUnknown(value) ? undefined : settingProblem(key, value);
    if (problem) failures.push({ property: key, reason: problem });
  }
  return failures;
}

/**
 * The settings a ConfigureRequest carries: the provider's arguments (secret ones marked, whatever
 * the plugin accepts), then its variables, which the engine names `keboola:config:<name>`
 * (pulumi/pulumi sdk/go/common/resource/plugin/provider_plugin.go, Configure); resolveSettings
 * asks the environment only for what neither has.
 */
export function configSourceOf(req: proto.ConfigureRequest): ConfigSource {
  const args = fromStruct(req.getArgs());
  const variables = req.getVariablesMap();
  const nameOf = (key: string) => (key.startsWith(`${PACKAGE}:`) ? key.slice(PACKAGE.length + 1) : key);
  const fromArgs: ConfigSource = {
    get(key) {
      const arg = unmarked(args[nameOf(key)]);
      return typeof arg === "string" || typeof arg === "number" || typeof arg === "boolean" ? String(arg) : undefined;
    },
  };
  const fromVariables: ConfigSource = { get: (key) => variables.get(`${PACKAGE}:config:${nameOf(key)}`) ?? undefined };
  return layered(fromArgs, fromVariables);
}

/** The configuration a plugin process holds (the client made from it: resources.ts clientOf). */
export class PluginConfig {
  /** The settings of the last Configure; undefined before it (a call then fails naming what to set). */
  source: ConfigSource | undefined;

  configure(source: ConfigSource): void {
    this.source = source;
  }

  checkConfig(req: proto.CheckRequest): proto.CheckResponse {
    const news = fromStruct(req.getNews());
    const failures = configFailures(news).map((f) => new proto.CheckFailure().setProperty(f.property).setReason(f.reason));
    return new proto.CheckResponse().setInputs(toStruct(news)).setFailuresList(failures);
  }

  diffConfig(req: proto.DiffRequest): proto.DiffResponse {
    // A changed setting updates the provider in place: the objects are the project's, whichever
    // URL or token reaches them, so nothing is ever replaced for it.
    const olds = fromStruct(req.getOldInputs() ?? req.getOlds());
    const news = fromStruct(req.getNews());
    const changed = NAMES.filter((k) => JSON.stringify(olds[k]) !== JSON.stringify(news[k]));
    return new proto.DiffResponse()
      .setChanges(changed.length > 0 ? proto.DiffResponse.DiffChanges.DIFF_SOME : proto.DiffResponse.DiffChanges.DIFF_NONE)
      .setDiffsList(changed);
  }
}
