import { beforeAll, describe, expect, it, vi } from "vitest";
import * as pulumi from "@pulumi/pulumi";
import * as keboola from "../../provider/index";
import { withDependency } from "../../provider/program/resource";

// A Sink writing a Table of the same program depends on it (provider/kinds/sink.ts), beside
// whatever the program's own dependsOn says in any of the forms Pulumi takes: a resource, a list,
// or a promise or output of either.

beforeAll(async () => {
  await pulumi.runtime.setMocks(
    {
      newResource(args) {
        const outs: Record<string, unknown> = { ...args.inputs };
        if (args.type.endsWith(":Source")) outs.sourceId = String(args.inputs.name).toLowerCase();
        if (args.type.endsWith(":Sink")) outs.sinkId = String(args.inputs.name).toLowerCase();
        return { id: `${args.name}-id`, state: outs };
      },
      call: () => ({}),
    },
    "project",
    "stack",
    false,
  );
});

const columns = [{ type: "uuid" as const, name: "id" }];
const urnOf = (r: pulumi.Resource) => new Promise<string>((resolve) => r.urn.apply(resolve));

/** The resources `dependsOn` names, as the SDK gathers them: each one's URN. */
async function urnsOf(dependsOn: pulumi.CustomResourceOptions["dependsOn"]): Promise<string[]> {
  const settled = (v: unknown) => new Promise<unknown>((resolve) => (pulumi.Output.isInstance(v) ? v.apply(resolve) : resolve(v)));
  const list = await settled(dependsOn);
  const items: unknown[] = Array.isArray(list) ? list : [list];
  return Promise.all(
    items.map(async (item) => {
      const resource = await settled(item);
      if (!pulumi.Resource.isInstance(resource)) throw new Error(`not a resource: ${String(resource)}`);
      return urnOf(resource);
    }),
  );
}

describe("a Sink's dependencies", () => {
  const a = new keboola.Bucket("dep-a", { name: "dep-a" });
  const b = new keboola.Bucket("dep-b", { name: "dep-b" });
  const t = new keboola.Bucket("dep-t", { name: "dep-t" });

  it("adds the resource to each form of dependsOn", async () => {
    const [ua, ub, ut] = await Promise.all([urnOf(a), urnOf(b), urnOf(t)]);
    expect(await urnsOf(withDependency(undefined, t))).toEqual([ut]);
    expect(await urnsOf(withDependency(a, t))).toEqual([ua, ut]);
    expect(await urnsOf(withDependency([a, b], t))).toEqual([ua, ub, ut]);
    expect(await urnsOf(withDependency(Promise.resolve([a, b]), t))).toEqual([ua, ub, ut]);
    expect(await urnsOf(withDependency(Promise.resolve(a), t))).toEqual([ua, ut]);
    expect(await urnsOf(withDependency(pulumi.output([a, b]), t))).toEqual([ua, ub, ut]);
    expect(await urnsOf(withDependency(pulumi.output(a), t))).toEqual([ua, ut]);
  });

  it("registers a Sink writing a Table of this program after the Table and the program's dependsOn", async () => {
    const monitor = pulumi.runtime.getMonitor();
    if (!monitor) throw new Error("no monitor: setMocks did not run");
    const spy = vi.spyOn(monitor, "registerResource");
    try {
      const table = new keboola.Table("dep-table", { bucketId: "in.c-dep-t", name: "events", columns: ["id"] });
      const src = new keboola.Source("dep-src", { name: "dep-src" });
      const forms: Array<[string, pulumi.CustomResourceOptions["dependsOn"]]> = [
        ["list", [a, b]],
        ["one", a],
        ["promise", Promise.resolve([a, b])],
        ["output", pulumi.output([a, b])],
      ];
      const sinks = forms.map(([form, dependsOn]) => new keboola.Sink(`dep-sink-${form}`, { sourceId: src.sourceId, name: form, tableId: "in.c-dep-t.events", columns }, { dependsOn }));
      await Promise.all(sinks.map(urnOf));
      const [ua, ub, utable] = await Promise.all([urnOf(a), urnOf(b), urnOf(table)]);
      const dependencies = (form: string) =>
        spy.mock.calls
          .map(([req]) => req)
          .find((req) => req.getName() === `dep-sink-${form}`)
          ?.getDependenciesList()
          .sort();
      expect(dependencies("list")).toEqual(expect.arrayContaining([ua, ub, utable]));
      expect(dependencies("one")).toEqual(expect.arrayContaining([ua, utable]));
      expect(dependencies("one")).not.toContain(ub);
      expect(dependencies("promise")).toEqual(expect.arrayContaining([ua, ub, utable]));
      expect(dependencies("output")).toEqual(expect.arrayContaining([ua, ub, utable]));
    } finally {
      spy.mockRestore();
    }
  });
});
