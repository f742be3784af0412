// The provider reference of a dynamic resource: the `__provider` property Pulumi keeps with every
// dynamic resource, inputs and outputs alike, and evaluates in the dynamic provider process to get
// the object that runs the resource's methods (@pulumi/pulumi cmd/dynamic-provider: getProvider
// evaluates it with `requireFromString(...).handler()`; check, diff, create and update take it
// from the new inputs, read and delete from the recorded state). Pulumi tells a dynamic provider
// neither the resource's URN nor its name (dynamic.ResourceProvider's methods get an id and
// properties only), so the reference says them: it names the kind and the resource, and requires
// the runtime at call time, so that no code of ours is kept in state and a newer version of the
// package runs an older resource's methods. Written by the program process (program/resource.ts),
// read by the dynamic provider process (dynamic/runtime.ts resourceProvider).

/** Who the resource is: what a door needs besides the properties. */
export interface ProviderReference {
  /** The kind's class name (`Source`), which names its row in the kinds table (kinds/registry.ts). */
  type: string;
  /** The resource's URN: its name and, through ownership.ts ownerOfUrn, its owner marker. */
  urn: string;
  /** The program's directory, which relative paths in inputs are relative to (a Table's data). */
  root?: string;
}

/** The package's module the reference requires: keboola-pulumi's `./runtime` export. */
export const RUNTIME_MODULE = "keboola-pulumi/runtime";

/** The `__provider` text of a resource: a module whose `handler` gives its provider object. */
export function providerText(ref: ProviderReference): string {
  // JSON is a JavaScript expression: the reference is data, never code.
  return `exports.handler = () => require(${JSON.stringify(RUNTIME_MODULE)}).resourceProvider(${JSON.stringify(ref)});\n`;
}

/** The reference a `__provider` text of ours holds (undefined: another text, such as an earlier version's). */
export function referenceOf(text: unknown): ProviderReference | undefined {
  if (typeof text !== "string") return undefined;
  const m = /\.resourceProvider\((\{.*\})\);\n?$/.exec(text);
  if (!m) return undefined;
  try {
    const ref: unknown = JSON.parse(m[1]);
    if (typeof ref !== "object" || ref === null || !("type" in ref) || !("urn" in ref) || typeof ref.type !== "string" || typeof ref.urn !== "string") return undefined;
    return { type: ref.type, urn: ref.urn, ...("root" in ref && typeof ref.root === "string" ? { root: ref.root } : {}) };
  } catch {
    return undefined;
  }
}
