import { describe, expect, it } from "vitest";
import { ManifestError, parseManifest } from "../../provider/manifest/parse";

// flows: and schedules: in keboola.yaml: references by key, the shared flow rules and the cron
// dialect, each problem at its line and column.

const CONFIGS = `configurations:
  users:
    componentId: keboola.ex-generic-v2
    name: Users
    configuration: { parameters: { api: { baseUrl: "https://api.example.com/" } } }
  orders:
    componentId: keboola.ex-generic-v2
    name: Orders
    configuration: { parameters: { api: { baseUrl: "https://api.example.com/" } } }
`;

// The manifest of issue 18, as written.
const ISSUE = `${CONFIGS}flows:
  nightly:
    name: Nightly
    phases:
      - { name: extract, tasks: [{ configuration: users }] }
      - { name: load, dependsOn: [extract], tasks: [{ configuration: orders }] }
schedules:
  nightly:
    flow: nightly
    cron: "0 3 * * *"
    timezone: Europe/Prague
`;

function problems(text: string): string[] {
  try {
    parseManifest(text);
  } catch (err) {
    if (err instanceof ManifestError) return err.problems.map((p) => `${p.line}:${p.column} ${p.path}: ${p.message}`);
    throw err;
  }
  return [];
}

describe("flows and schedules in the manifest", () => {
  it("parses the issue's manifest as written, with defaults", () => {
    const m = parseManifest(ISSUE);
    expect(m.flows?.nightly.phases.map((p) => [p.name, p.dependsOn, p.tasks.map((t) => t.configuration)])).toEqual([
      ["extract", [], ["users"]],
      ["load", ["extract"], ["orders"]],
    ]);
    expect(m.schedules?.nightly).toMatchObject({ flow: "nightly", cron: "0 3 * * *", timezone: "Europe/Prague", enabled: true });
  });

  it("refuses a task naming no configuration entry, at its position", () => {
    expect(problems(ISSUE.replace("configuration: orders }", "configuration: order }"))).toEqual([
      '15:70 flows.nightly.phases[1].tasks[0].configuration: "order" is not a key under configurations (one of: users, orders): name an entry of configurations',
    ]);
  });

  it("refuses a bad cron and an unknown timezone with the fix", () => {
    const found = problems(ISSUE.replace('"0 3 * * *"', '"0 3 * *"').replace("Europe/Prague", "Europe/Prag"));
    expect(found).toHaveLength(2);
    expect(found[0]).toMatch(/^19:11 schedules\.nightly\.cron: "0 3 \* \*" has 4 fields, the Scheduler takes exactly 5: write five fields/);
    expect(found[1]).toMatch(/^20:15 schedules\.nightly\.timezone: "Europe\/Prag" is not an IANA timezone name: use a name/);
  });

  it("refuses a dependsOn naming no phase, a cycle and an empty phase", () => {
    expect(problems(ISSUE.replace("dependsOn: [extract]", "dependsOn: [extrakt]"))).toEqual([
      '15:35 flows.nightly.phases[1].dependsOn[0]: missing phase "extrakt", referenced from "load": name an existing phase (one of: "extract", "load")',
    ]);
    const cycle = problems(ISSUE.replace("{ name: extract, tasks", "{ name: extract, dependsOn: [load], tasks"));
    expect(cycle).toEqual([expect.stringMatching(/flows\.nightly\.phases\[0\]\.dependsOn: found cycles in phases "dependsOn": "extract" -> "load" -> "extract": remove one dependsOn/)]);
    const empty = problems(ISSUE.replace("tasks: [{ configuration: orders }]", "tasks: []"));
    expect(empty).toEqual([expect.stringMatching(/flows\.nightly\.phases\[1\]: phase "load" has no tasks: add a task to it/)]);
  });

  it("refuses a schedule with no target or two, and a flow key that does not exist", () => {
    expect(problems(ISSUE.replace("    flow: nightly\n", ""))).toEqual([expect.stringMatching(/schedules\.nightly\.flow: name exactly one target/)]);
    expect(problems(ISSUE.replace("    flow: nightly\n", "    flow: nightly\n    configuration: users\n"))).toEqual([expect.stringMatching(/schedules\.nightly\.flow: name exactly one target/)]);
    expect(problems(ISSUE.replace("    flow: nightly\n", "    flow: daily\n"))).toEqual([expect.stringMatching(/schedules\.nightly\.flow: "daily" is not a key under flows \(one of: nightly\)/)]);
  });
});
