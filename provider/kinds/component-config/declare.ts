import * as pulumi from "@pulumi/pulumi";
import type { DeployContext } from "../../program/manifest-context";
import type { ConfigurationEntry } from "./manifest";
import { ComponentConfig, type ComponentConfigArgs } from "./resource";

/**
 * The `configurations` of a manifest: a ComponentConfig each, bound (and its rows bound) to the
 * variables its `variables` names by key, its `secrets` read from stack config.
 */
export function declareConfigurations(entries: Record<string, ConfigurationEntry>, ctx: DeployContext<unknown, { variables: Record<string, { binding(): NonNullable<ComponentConfigArgs["variables"]> }> }>) {
  const configurations: Record<string, ComponentConfig> = {};
  for (const [key, { variables, secrets, configuration, rows: manifestRows, ...inputs }] of Object.entries(entries)) {
    const withSecrets = secretValues(secrets ?? {});
    // A row's `variables` names an entry of variables: the row is bound to it as the configuration is.
    const rows = manifestRows.map(({ variables: rowVariables, ...r }) => ({ ...r, ...(rowVariables ? { variables: ctx.declared.variables[rowVariables].binding() } : {}) }));
    configurations[key] = new ComponentConfig(
      key,
      {
        ...inputs,
        configuration: withSecrets ? withSecrets("configuration", configuration) : configuration,
        rows: withSecrets ? rows.map((r, i) => ({ ...r, configuration: withSecrets(`rows.${i}.configuration`, r.configuration) })) : rows,
        ...(variables ? { variables: ctx.declared.variables[variables].binding() } : {}),
      },
      ctx.optsOf(key),
    );
  }
  return { configurations };
}

/**
 * `secrets: {path: configKey}` -> a function putting the stack config secrets into one object
 * (`configuration` or `rows.<i>.configuration`); undefined when there are none. Each secret is
 * placed as an Output at its own path, so Pulumi keeps only that value secret (as in a program
 * passing `config.requireSecret(...)` inside an object literal): `pulumi preview --diff` and
 * `--json` show the rest of the configuration and its changes instead of one `[secret]` (an
 * array holding a secret, such as `rows` with a row's secret, stays secret whole: Pulumi's engine
 * carries secretness into objects only).
 */
function secretValues(secrets: Record<string, string>): ((prefix: string, value: Record<string, unknown>) => pulumi.Input<Record<string, unknown>>) | undefined {
  const entries = Object.entries(secrets);
  if (entries.length === 0) return undefined;
  return (prefix, value) => {
    const mine = entries.filter(([p]) => p.startsWith(`${prefix}.`));
    if (mine.length === 0) return value;
    const copy = structuredClone(value);
    for (const [p, key] of mine) {
      const [ns, name] = key.includes(":") ? [key.slice(0, key.indexOf(":")), key.slice(key.indexOf(":") + 1)] : [undefined, key];
      setPath(copy, p.slice(prefix.length + 1).split("."), new pulumi.Config(ns).requireSecret(name));
    }
    return copy;
  };
}

/** Sets the value at a dotted path, stepping into objects by key and arrays by index (`a["0"]`), creating objects where none is. */
function setPath(obj: Record<string, unknown>, keys: string[], value: unknown): void {
  let o: object = obj;
  for (const k of keys.slice(0, -1)) {
    const next: unknown = Reflect.get(o, k);
    if (next && typeof next === "object") o = next;
    else {
      const created = {};
      Reflect.set(o, k, created);
      o = created;
    }
  }
  Reflect.set(o, keys[keys.length - 1], value);
}
