import * as pulumi from "@pulumi/pulumi";
import { UNKNOWN } from "../../provider/validation/check";
import type { Props } from "../../provider/lifecycle/types";
import { referenceOf } from "../../provider/program/reference";

// A program previewed as the Pulumi engine previews it, under Pulumi's mocks: resources not
// created yet have no outputs, so what references them is unknown, and each resource registers
// the inputs the engine would pass to its provider's check (unknowns as the engine's marker). The
// resource classes derive their facts about the program (`__program`, provider/program/declarations.ts)
// exactly as in a real run.

const registered: pulumi.runtime.MockResourceArgs[] = [];
let mocked = false;

/** Installs the mocks once per test file: preview (dry run), and no outputs for any resource (none exists yet). */
export async function mockPreview(): Promise<void> {
  if (mocked) return;
  mocked = true;
  await pulumi.runtime.setMocks(
    {
      newResource(args) {
        registered.push(args);
        return { id: undefined, state: {} };
      },
      call: () => ({}),
    },
    "project",
    "preview",
    true,
  );
}

/** The resources registered since `from` (a count answered by registeredSince()), as the mocks saw them. */
export function registeredSince(): number;
export function registeredSince(from: number): pulumi.runtime.MockResourceArgs[];
export function registeredSince(from?: number): number | pulumi.runtime.MockResourceArgs[] {
  return from === undefined ? registered.length : registered.slice(from);
}

/** The engine's marker in place of every value the mocks report unknown (`{__pulumiUnknown: true}`). */
function withMarkers(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withMarkers);
  if (v && typeof v === "object") {
    if ((v as Record<string, unknown>).__pulumiUnknown === true) return UNKNOWN;
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, withMarkers(x)]));
  }
  return v;
}

/**
 * Runs `build` (which constructs the program's resources) and answers the check inputs of the
 * resource named `name`, as registered. `root` is the program's directory (a Table's data path is
 * relative to it).
 */
export async function previewInputs(build: () => pulumi.Resource[], name: string, root?: string): Promise<Props> {
  const from = registered.length;
  const resources = build();
  await Promise.all(resources.map((r) => new Promise<void>((resolve) => r.urn.apply(() => resolve()))));
  const found = registered.slice(from).find((r) => r.name === name);
  if (!found) throw new Error(`previewInputs: no resource "${name}" was registered`);
  const { __provider: provider, ...inputs } = withMarkers(found.inputs) as Props;
  // The identity its provider reference names, as the hosted handlers take it (hosted.ts).
  const ref = referenceOf(provider);
  if (!ref) throw new Error(`previewInputs: "${name}" registered no provider reference of ours`);
  return { ...inputs, __owner: ref.urn, __root: root ?? ref.root };
}
