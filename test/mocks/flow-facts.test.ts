import { beforeAll, describe, expect, it } from "vitest";
import * as pulumi from "@pulumi/pulumi";
import * as keboola from "../../provider/index";
import { declareManifest } from "../../provider/manifest/deploy";
import { parseManifest } from "../../provider/manifest/parse";

// What a Flow and a Schedule tell the provider about the configurations and flows they reference
// from the same program (the hidden input `__program`), under Pulumi's mocks: the facts their
// checks in test/provider/schedule.test.ts are given are the ones a program (and a manifest) sends.

const created: pulumi.runtime.MockResourceArgs[] = [];

beforeAll(async () => {
  await pulumi.runtime.setMocks(
    {
      newResource(args) {
        created.push(args);
        const outs: Record<string, unknown> = { ...args.inputs };
        if (/:(ComponentConfig|Flow|Schedule)$/.test(args.type)) outs.configId = args.inputs.configId ?? `${args.name}-id`;
        return { id: `${args.name}-id`, state: outs };
      },
      call: () => ({}),
    },
    "project",
    "stack",
    false,
  );
});

async function factsOf(resource: pulumi.CustomResource, name: string): Promise<Record<string, unknown>> {
  await new Promise<void>((resolve) => resource.urn.apply(() => resolve()));
  return created.find((c) => c.name === name)!.inputs.__program as Record<string, unknown>;
}

const extractor = { componentId: "keboola.ex-generic-v2", name: "E", configuration: { parameters: { api: { baseUrl: "https://api.example.com/" } } } };

describe("facts of flows and schedules", () => {
  it("marks each task whose configuration is a ComponentConfig of the program, by output or by literal id", async () => {
    const users = new keboola.ComponentConfig("ff-users", extractor);
    new keboola.ComponentConfig("ff-orders", { ...extractor, configId: "ff-orders" });
    const flow = new keboola.Flow("ff-flow", {
      name: "F",
      phases: [
        { name: "a", tasks: [{ componentId: "keboola.ex-generic-v2", configId: users.configId }] },
        { name: "b", dependsOn: ["a"], tasks: [{ componentId: "keboola.ex-generic-v2", configId: "ff-orders" }, { componentId: "keboola.ex-generic-v2", configId: "elsewhere" }] },
      ],
    });
    expect(await factsOf(flow, "ff-flow")).toEqual({ declaredTasks: [[true], [true, false]] });
  });

  it("refuses two Flows, or two Schedules, of one configuration id, naming both; a Flow and a Schedule of one id are two configurations", () => {
    const phases = [{ name: "a", tasks: [{ componentId: "keboola.ex-generic-v2", configId: "x" }] }];
    new keboola.Flow("ff-dup-a", { name: "A", configId: "ff-dup", phases });
    expect(() => new keboola.Flow("ff-dup-b", { name: "B", configId: "ff-dup", phases })).toThrow(
      'keboola:Flow "ff-dup-b": configuration "ff-dup" of keboola.flow is already declared by keboola:Flow "ff-dup-a" in this program; two resources would manage one object. Give one of them another configId.',
    );
    const target = { componentId: "keboola.ex-generic-v2", configId: "x" };
    new keboola.Schedule("fs-dup-a", { name: "A", configId: "ff-dup", cron: "@daily", target });
    expect(() => new keboola.Schedule("fs-dup-b", { name: "B", configId: "ff-dup", cron: "@daily", target })).toThrow(
      'keboola:Schedule "fs-dup-b": configuration "ff-dup" of keboola.scheduler is already declared by keboola:Schedule "fs-dup-a" in this program',
    );
  });

  it("gives a schedule its Flow of the program (no variables to bind) or its ComponentConfig, and nothing for others", async () => {
    const flow = new keboola.Flow("fs-flow", { name: "F", isDisabled: true, phases: [{ name: "a", tasks: [{ componentId: "keboola.ex-generic-v2", configId: "x" }] }] });
    const ofFlow = new keboola.Schedule("fs-of-flow", { name: "S", cron: "@daily", target: flow.target() });
    expect(await factsOf(ofFlow, "fs-of-flow")).toEqual({ declared: true, configuration: { type: "Flow", resource: "fs-flow", isDisabled: true, bound: false } });
    const config = new keboola.ComponentConfig("fs-config", extractor);
    const ofConfig = new keboola.Schedule("fs-of-config", { name: "S", cron: "@daily", target: { componentId: "keboola.ex-generic-v2", configId: config.configId } });
    expect(await factsOf(ofConfig, "fs-of-config")).toEqual({ declared: true, configuration: { resource: "fs-config", isDisabled: false, bound: false } });
    // A flow's configuration kept as a plain ComponentConfig of the program is declared all the same.
    const raw = new keboola.ComponentConfig("fs-raw-flow", { componentId: "keboola.flow", name: "Raw flow", configuration: { phases: [], tasks: [] } });
    const ofRaw = new keboola.Schedule("fs-of-raw", { name: "S", cron: "@daily", target: { componentId: "keboola.flow", configId: raw.configId } });
    expect(await factsOf(ofRaw, "fs-of-raw")).toEqual({ declared: true, configuration: { resource: "fs-raw-flow", isDisabled: false, bound: false } });
    const other = new keboola.Schedule("fs-other", { name: "S", cron: "@daily", target: { componentId: "keboola.flow", configId: "not-here" } });
    expect(await factsOf(other, "fs-other")).toEqual({ declared: false });
  });

  it("a manifest's flow and schedule reference its entries as outputs, so both are known as declared", async () => {
    const m = parseManifest(`configurations:
  m-users: { componentId: keboola.ex-generic-v2, name: Users, configuration: { parameters: { api: { baseUrl: "https://api.example.com/" } } } }
flows:
  m-nightly:
    name: Nightly
    phases: [{ name: extract, tasks: [{ configuration: m-users }] }]
schedules:
  m-nightly-run: { flow: m-nightly, cron: "0 3 * * *", timezone: Europe/Prague }
`);
    const out = declareManifest(m);
    expect(await factsOf(out.flows["m-nightly"]!, "m-nightly")).toEqual({ declaredTasks: [[true]] });
    expect(await factsOf(out.schedules["m-nightly-run"]!, "m-nightly-run")).toEqual({ declared: true, configuration: { type: "Flow", resource: "m-nightly", isDisabled: false, bound: false } });
    expect(created.find((c) => c.name === "m-nightly-run")!.inputs).toMatchObject({ name: "m-nightly-run", target: { componentId: "keboola.flow", configId: "m-nightly-id" } });
  });
});
