import { beforeAll, describe, expect, it } from "vitest";
import * as pulumi from "@pulumi/pulumi";
import { getMonitor } from "@pulumi/pulumi/runtime/settings";
import * as keboola from "../../provider/index";
import { declareManifest } from "../../provider/manifest/deploy";
import { parseManifest } from "../../provider/manifest/parse";

// `deletedWith` as the resource classes derive it (provider/lifecycle/program.ts), read from the
// RegisterResource requests the program sends: a Sink and a SourceSettings are deleted with the
// Source whose sourceId output they reference, a SinkSettings with the Sink whose sinkId output it
// references; never for literal ids or another branch, and never over the program's own option.

/** deletedWith URN ("" for none) of each registered resource, by name. */
const deletedWith = new Map<string, string>();

interface RegisterRequest {
  getName(): string;
  getDeletedwith(): string;
}

beforeAll(async () => {
  await pulumi.runtime.setMocks(
    {
      newResource: (args) => {
        const outs: Record<string, unknown> = { branchId: "default", ...args.inputs };
        if (args.type.endsWith(":Source")) outs.sourceId = args.inputs.sourceId ?? args.name;
        if (args.type.endsWith(":Sink")) outs.sinkId = args.inputs.sinkId ?? args.name;
        return { id: `${args.name}-id`, state: outs };
      },
      call: () => ({}),
    },
    "project",
    "stack",
    false,
  );
  const monitor = getMonitor() as unknown as { registerResource(req: RegisterRequest, cb: unknown): unknown };
  const register = monitor.registerResource.bind(monitor);
  monitor.registerResource = (req, cb) => {
    deletedWith.set(req.getName(), req.getDeletedwith());
    return register(req, cb);
  };
});

/** Waits until every resource is registered, then tells what each was registered with. */
async function registered(...resources: pulumi.CustomResource[]): Promise<Record<string, string>> {
  const urns = await Promise.all(resources.map((r) => new Promise<string>((resolve) => r.urn.apply(resolve))));
  return Object.fromEntries(urns.map((urn) => [urn.split("::").pop()!, deletedWith.get(urn.split("::").pop()!) ?? "not registered"]));
}

const urn = (type: string, name: string) => `urn:pulumi:stack::project::pulumi-nodejs:dynamic/keboola:${type}::${name}`;
const COLUMNS = [{ type: "uuid" as const, name: "id" }];

describe("deletedWith", () => {
  it("deletes a sink and the source's settings with their Source, and a sink's settings with their Sink", async () => {
    const src = new keboola.Source("dw-src", { name: "Dw Src" });
    const snk = new keboola.Sink("dw-sink", { sourceId: src.sourceId, name: "Dw Sink", tableId: "in.c-dw.t", columns: COLUMNS });
    const sinkSettings = new keboola.SinkSettings("dw-sink-settings", { sourceId: src.sourceId, sinkId: snk.sinkId, stagingUploadTrigger: { count: 1000 } });
    const sourceSettings = new keboola.SourceSettings("dw-src-settings", { sourceId: src.sourceId, targetImportTrigger: { count: 1000 } });
    // The sink's own outputs name it as well.
    const viaSink = new keboola.SinkSettings("dw-sink-settings-2", { branchId: snk.branchId, sourceId: snk.sourceId, sinkId: snk.sinkId, syncWait: false });
    expect(await registered(src, snk, sinkSettings, sourceSettings, viaSink)).toEqual({
      "dw-src": "",
      "dw-sink": urn("Source", "dw-src"),
      "dw-sink-settings": urn("Sink", "dw-sink"),
      "dw-src-settings": urn("Source", "dw-src"),
      "dw-sink-settings-2": urn("Sink", "dw-sink"),
    });
  });

  it("derives nothing from literal ids: they may name objects another program manages", async () => {
    const snk = new keboola.Sink("lit-sink", { sourceId: "lit-src", name: "Lit Sink", tableId: "in.c-dw.lit", columns: COLUMNS });
    const sinkSettings = new keboola.SinkSettings("lit-sink-settings", { sourceId: "lit-src", sinkId: "lit-sink" });
    const sourceSettings = new keboola.SourceSettings("lit-src-settings", { sourceId: "lit-src" });
    // The sinkId output of a Sink of this program is a reference, whatever names its source.
    const ofSink = new keboola.SinkSettings("lit-sink-settings-2", { sourceId: "lit-src", sinkId: snk.sinkId });
    expect(await registered(snk, sinkSettings, sourceSettings, ofSink)).toEqual({
      "lit-sink": "",
      "lit-sink-settings": "",
      "lit-src-settings": "",
      "lit-sink-settings-2": urn("Sink", "lit-sink"),
    });
  });

  it("derives nothing across branches: deleting a source leaves another branch's sink", async () => {
    const src = new keboola.Source("br-src", { name: "Br Src", branchId: "123" });
    const other = new keboola.Sink("br-other", { branchId: "456", sourceId: src.sourceId, name: "Br Other", tableId: "in.c-dw.other", columns: COLUMNS });
    const defaultBranch = new keboola.SourceSettings("br-default-settings", { sourceId: src.sourceId, syncWait: false });
    const same = new keboola.Sink("br-same", { branchId: "123", sourceId: src.sourceId, name: "Br Same", tableId: "in.c-dw.same", columns: COLUMNS });
    const viaOutput = new keboola.SourceSettings("br-settings", { branchId: src.branchId, sourceId: src.sourceId, syncWait: false });
    // The settings' sink is in another branch than the one they name: only the Source is sure.
    const crossed = new keboola.SinkSettings("br-crossed", { branchId: "123", sourceId: src.sourceId, sinkId: other.sinkId });
    expect(await registered(other, defaultBranch, same, viaOutput, crossed)).toEqual({
      "br-other": "",
      "br-default-settings": "",
      "br-same": urn("Source", "br-src"),
      "br-settings": urn("Source", "br-src"),
      "br-crossed": urn("Source", "br-src"),
    });
  });

  it("knows one branch given two ways (omitted or \"default\", one output), and derives nothing between branches it cannot name", async () => {
    const src = new keboola.Source("two-ways-src", { name: "Two Ways" });
    const named = new keboola.Sink("two-ways-default", { branchId: "default", sourceId: src.sourceId, name: "Two Ways Default", tableId: "in.c-dw.tw", columns: COLUMNS });
    // An output of something else than a Branch of this program: the same output is the same branch;
    // another such output may be another branch.
    const elsewhere = pulumi.output("88");
    const far = new keboola.Source("far-src", { name: "Far Src", branchId: elsewhere });
    const sameOutput = new keboola.Sink("far-same", { branchId: elsewhere, sourceId: far.sourceId, name: "Far Same", tableId: "in.c-dw.fs", columns: COLUMNS });
    const otherOutput = new keboola.Sink("far-other", { branchId: pulumi.output("88"), sourceId: far.sourceId, name: "Far Other", tableId: "in.c-dw.fo", columns: COLUMNS });
    expect(await registered(named, sameOutput, otherOutput)).toEqual({
      "two-ways-default": urn("Source", "two-ways-src"),
      "far-same": urn("Source", "far-src"),
      "far-other": "",
    });
  });

  it("keeps the program's own deletedWith, also an explicit undefined (no deletedWith)", async () => {
    const src = new keboola.Source("own-src", { name: "Own Src" });
    const anchor = new keboola.Source("own-anchor", { name: "Own Anchor" });
    const explicit = new keboola.Sink("own-explicit", { sourceId: src.sourceId, name: "Own Explicit", tableId: "in.c-dw.own", columns: COLUMNS }, { deletedWith: anchor });
    const optOut = new keboola.Sink("own-none", { sourceId: src.sourceId, name: "Own None", tableId: "in.c-dw.none", columns: COLUMNS }, { deletedWith: undefined });
    const other = new keboola.SinkSettings("own-settings", { sourceId: src.sourceId, sinkId: explicit.sinkId }, { protect: false });
    expect(await registered(explicit, optOut, other)).toEqual({
      "own-explicit": urn("Source", "own-anchor"),
      "own-none": "",
      "own-settings": urn("Sink", "own-explicit"),
    });
  });

  it("derives the same for a manifest's entries", async () => {
    const m = parseManifest(`
sources:
  mf-src:
    name: Mf Src
    branchId: "77"
    settings: { targetImportTrigger: { count: 1000 } }
sinks:
  mf-sink:
    source: mf-src
    name: Mf Sink
    tableId: in.c-mf.t
    columns: [{ type: uuid, name: id }]
    settings: { stagingUploadTrigger: { count: 1000 } }
`);
    const out = declareManifest(m);
    expect(await registered(out.sources["mf-src"], out.sourceSettings["mf-src"], out.sinks["mf-sink"], out.sinkSettings["mf-sink"])).toEqual({
      "mf-src": "",
      "mf-src-settings": urn("Source", "mf-src"),
      "mf-sink": urn("Source", "mf-src"),
      "mf-sink-settings": urn("Sink", "mf-sink"),
    });
  });
});
