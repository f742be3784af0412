import { isRecord, parseJson } from "../../keboola/json";
import { KIND_NAMES, KINDS, type ResourceKind } from "../kinds/registry";
import type { Props } from "../lifecycle/types";
import type { PulumiCli } from "../pipeline/pulumi";
import { SECRET_SIG, SIG_KEY } from "../lifecycle/secret-sig";

// What `drift` and `pull` read of a stack: its resources of our kinds, through either front door
// (`pulumi-nodejs:dynamic/keboola:<Kind>` or the plugin's `keboola:index:<Kind>`), with the state
// each last `up` (or refresh) recorded, and the settings to reach Keboola with. The state is read
// with its secrets decrypted (the reads need the recorded ciphertexts and tokens); it stays in this
// process's memory and is never printed.

export interface ManagedResource {
  urn: string;
  /** The Pulumi resource name (a manifest key, `<key>-settings` for settings). */
  name: string;
  kind: ResourceKind;
  door: "dynamic" | "plugin";
  id: string;
  /** The recorded inputs, bookkeeping (`__*`) included: a read is called with them as a refresh is. */
  inputs: Props;
  /** The recorded outputs: what Keboola held after the last `up`, ciphertexts for `#` values. */
  outputs: Props;
  /** Resources this one depends on, by URN (for the picture's edges). */
  dependencies: string[];
  propertyDependencies: Record<string, string[]>;
  /** The explicit provider's inputs (plugin door), where it names its own host and token. */
  providerInputs?: Props;
}

export interface StackSnapshot {
  /** The stack's name as its URNs give it. */
  stack: string;
  resources: ManagedResource[];
  /** Stack config, secrets decrypted (`keboola:host`, `keboola:token`, ...). */
  config: Record<string, string>;
}

export class DriftError extends Error {
  override readonly name = "DriftError";
}

const DYNAMIC = /^pulumi-nodejs:dynamic\/keboola:([A-Za-z]+)$/;
const PLUGIN = /^keboola:index:([A-Za-z]+)$/;

/** The kind and front door of a resource type, or undefined for another package's resource. */
export function kindOfResourceType(type: string): { kind: ResourceKind; door: "dynamic" | "plugin" } | undefined {
  const m = DYNAMIC.exec(type) ?? PLUGIN.exec(type);
  const kind = m ? KIND_NAMES.find((k) => KINDS[k].type === m[1]) : undefined;
  return kind ? { kind, door: type.startsWith("keboola:") ? "plugin" : "dynamic" } : undefined;
}

const stackArgs = (stack: string | undefined) => (stack ? ["--stack", stack] : []);

async function json(pulumi: PulumiCli, args: string[], what: string): Promise<unknown> {
  const run = await pulumi.run(args, { quiet: true });
  if (run.code !== 0) throw new DriftError(`${what} failed (pulumi ${args.filter((a) => a !== "--show-secrets").join(" ")}): ${(run.stderr || run.stdout).trim().split("\n").slice(-5).join("\n")}`);
  try {
    return parseJson(run.stdout);
  } catch {
    throw new DriftError(`${what}: pulumi answered no JSON`);
  }
}

/**
 * A value of the exported state with its secrets opened. `pulumi stack export --show-secrets`
 * prints a secret, at any depth, as `{<SIG_KEY>: <SECRET_SIG>, plaintext: "<its JSON>"}`
 * (pulumi/pulumi pkg/resource/stack/deployment.go SerializePropertyValue, with a decrypter): a
 * `#` value the manifest reads from stack config is one inside a configuration, and the kinds'
 * reads and the comparison take the plain values a refresh hands them.
 */
export function openSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(openSecrets);
  if (!isRecord(value)) return value;
  if (value[SIG_KEY] === SECRET_SIG) {
    if (typeof value.plaintext === "string") return openSecrets(parseJson(value.plaintext));
    throw new DriftError("the stack's state holds a secret that `pulumi stack export --show-secrets` did not decrypt");
  }
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, openSecrets(v)]));
}

/**
 * Whether a provider's URN is a default provider's: the engine names it `default`, or
 * `default_<version>` with the version's dots as underscores (`default_0_1_0`) when the program
 * asks for a version.
 */
export function isDefaultProvider(urn: string): boolean {
  return /^default(_\d\w*)?$/.test(urn.split("::").pop() ?? "");
}

/** The stack's managed resources and config, as its state holds them now. */
export async function readStack(pulumi: PulumiCli, stack: string | undefined): Promise<StackSnapshot> {
  const [exported, configDoc] = await Promise.all([
    json(pulumi, ["stack", "export", "--show-secrets", ...stackArgs(stack)], "reading the stack's state"),
    json(pulumi, ["config", "--show-secrets", "--json", ...stackArgs(stack)], "reading the stack's config"),
  ]);
  const deployment = isRecord(exported) && isRecord(exported.deployment) ? exported.deployment : {};
  const records = Array.isArray(deployment.resources) ? deployment.resources.filter(isRecord) : [];
  const providers = new Map<string, Props>();
  for (const r of records) {
    // A default provider's inputs are the stack config of the last deployment: the stack's config
    // as it is now (read below) is what configures it, so a token set since reaches drift.
    if (typeof r.type === "string" && r.type.startsWith("pulumi:providers:") && typeof r.urn === "string" && !isDefaultProvider(r.urn)) {
      providers.set(`${r.urn}::${String(r.id)}`, isRecord(r.inputs) ? (openSecrets(r.inputs) as Props) : {});
    }
  }
  const resources: ManagedResource[] = [];
  let stackName = stack ?? "";
  for (const r of records) {
    if (typeof r.urn !== "string" || typeof r.type !== "string") continue;
    if (r.delete === true || r.pendingReplacement === true) continue; // a replaced resource's old half
    stackName ||= r.urn.split("::")[0].replace(/^urn:pulumi:/, "");
    const of = kindOfResourceType(r.type);
    if (!of || typeof r.id !== "string" || r.id === "") continue;
    const name = r.urn.split("::").slice(3).join("::");
    const outputs = isRecord(r.outputs) ? (openSecrets(r.outputs) as Props) : {};
    const inputs = isRecord(r.inputs) ? (openSecrets(r.inputs) as Props) : {};
    const provider = typeof r.provider === "string" ? providers.get(r.provider) : undefined;
    resources.push({
      urn: r.urn,
      name,
      ...of,
      id: r.id,
      inputs,
      outputs,
      dependencies: Array.isArray(r.dependencies) ? r.dependencies.filter((d): d is string => typeof d === "string") : [],
      propertyDependencies: isRecord(r.propertyDependencies)
        ? Object.fromEntries(Object.entries(r.propertyDependencies).map(([k, v]) => [k, Array.isArray(v) ? v.filter((d): d is string => typeof d === "string") : []]))
        : {},
      ...(provider && Object.keys(provider).length ? { providerInputs: provider } : {}),
    });
  }
  const config: Record<string, string> = {};
  if (isRecord(configDoc)) {
    for (const [key, entry] of Object.entries(configDoc)) {
      const value = isRecord(entry) ? entry.value : undefined;
      if (typeof value === "string") config[key] = value;
      else if (value !== undefined) config[key] = JSON.stringify(value);
    }
  }
  return { stack: stackName, resources, config };
}
