import * as pulumi from "@pulumi/pulumi";
import type { StackValues } from "../manifest/config-values";

// The stack config a manifest's `${name}` values are read from, in the program: the deploying
// project's namespace (`pulumi config set apiBase ...` writes `<project>:apiBase`). Raw reads
// (runtime.getConfig) rather than pulumi.Config.get, which warns on every secret it is asked for;
// which keys are secret, the engine hands the program as the config key PULUMI_CONFIG_SECRET_KEYS
// (@pulumi/pulumi runtime/config.js isConfigSecret reads the same key).

const SECRET_KEYS = "PULUMI_CONFIG_SECRET_KEYS";

export function programStackValues(): StackValues {
  const namespace = pulumi.getProject();
  let secretKeys: unknown;
  try {
    secretKeys = JSON.parse(pulumi.runtime.getConfig(SECRET_KEYS) ?? "[]");
  } catch {
    secretKeys = [];
  }
  const secret = new Set(Array.isArray(secretKeys) ? secretKeys.map(String) : []);
  return {
    namespace,
    get(name) {
      const key = `${namespace}:${name}`;
      const value = pulumi.runtime.getConfig(key);
      return value === undefined ? undefined : { value, secret: secret.has(key) };
    },
  };
}
