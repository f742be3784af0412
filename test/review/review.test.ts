import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { renderReview } from "../../provider/review/index";
import { KIND_ORDER } from "../../provider/review/kinds";
import { KINDS } from "../../provider/kinds/registry";
import { UNKNOWN } from "../../provider/review/values";
import { fixture, fixtureText, GOLDEN, mermaidOf, stepOf, type PreviewJson } from "./helpers";

// `keboola-pulumi review` over previews captured from the real CLI (test/review/fixtures/), and
// changed one thing at a time where a case needs what no capture has (a plain # value, an
// ingestion URL, a Branch, a literal id instead of a dependency).

const review = (preview: PreviewJson | string) => renderReview(typeof preview === "string" ? preview : JSON.stringify(preview));
const golden = (name: string) => fs.readFileSync(path.join(GOLDEN, name), "utf8");

describe("review: the golden example (the quickstart's scripted change)", () => {
  it("renders the captured preview as the reviewed golden file, with and without --show-sames", () => {
    expect(review(fixtureText("quickstart-change"))).toBe(golden("quickstart-change.md"));
    expect(review(fixtureText("quickstart-change-plain"))).toBe(golden("quickstart-change-plain.md"));
  });

  it("reads a replacement shown as its own steps (--show-replacement-steps) as one replacement", () => {
    expect(review(fixtureText("quickstart-change-steps"))).toBe(golden("quickstart-change.md"));
  });

  it("is the example in docs/", () => {
    expect(fs.readFileSync(path.join(__dirname, "..", "..", "docs", "review-example.md"), "utf8")).toBe(golden("quickstart-change.md"));
  });

  it("gives the same bytes whatever the order of the steps (Pulumi runs them in parallel)", () => {
    const preview = fixture("quickstart-change");
    const reversed = { ...preview, steps: [...preview.steps].reverse() };
    const rotated = { ...preview, steps: [...preview.steps.slice(3), ...preview.steps.slice(0, 3)] };
    expect(review(reversed)).toBe(golden("quickstart-change.md"));
    expect(review(rotated)).toBe(golden("quickstart-change.md"));
  });

  it("has no ANSI colours and no hidden bookkeeping inputs", () => {
    const text = golden("quickstart-change.md");
    expect(text).not.toMatch(/\x1b\[/);
    expect(text).not.toMatch(/__owner|__program|__provider|__resourceName|__root/);
    expect(fixtureText("quickstart-change")).toContain("__owner");
  });
});

describe("review: summary per kind", () => {
  it("counts creates, updates, replaces, deletes and unchanged ones per kind", () => {
    const text = review(fixtureText("quickstart-change"));
    expect(text).toContain("**3 to update, 1 to replace, 1 to delete**; 5 unchanged.");
    expect(text).toContain("| Source |  |  | 1 | 1 |");
    expect(text).toContain("| VariableConfig |  | 1 |  |  |");
    const first = review(fixtureText("quickstart-first"));
    expect(first).toContain("**10 to create**.");
    expect(first).toContain("| Sink | 2 |");
  });

  it("says when unchanged resources are left out of the preview (no --show-sames)", () => {
    const text = review(fixtureText("quickstart-change-plain"));
    expect(text).toContain("_5 unchanged resources are not in this preview: `pulumi preview --json --show-sames` lists them");
    expect(text).not.toContain("| unchanged |");
  });

  it("lists a step the summary does not count (a read) in a column of its own", () => {
    const preview = fixture("quickstart-change");
    stepOf(preview, "raw").op = "read";
    preview.changeSummary = { ...preview.changeSummary, same: 5, read: 1 };
    const text = review(preview);
    expect(text).toContain("| kind | to update | to replace | to delete | unchanged | other |");
    expect(text).toContain("| Sink | 1 |  |  |  | read |");
    expect(text).toContain("#### Sink `raw`: read\n\n`quickstart-events/raw-events`\n\nPulumi's step: `read`.");
  });

  it("knows every kind of the kinds table, and Branch", () => {
    const types: string[] = Object.values(KINDS).map((k) => k.type);
    for (const type of [...types, "Branch"]) expect(KIND_ORDER as readonly string[]).toContain(type);
  });

  it("reports a Branch and draws what is in it inside it", () => {
    const preview = fixture("quickstart-first");
    const template = stepOf(preview, "users-vars");
    const stack = template.urn.split("::")[0];
    const branchUrn = `${stack}::keboola::pulumi-nodejs:dynamic/keboola:Branch::feature`;
    preview.steps.push({
      op: "create",
      urn: branchUrn,
      newState: { ...template.newState!, urn: branchUrn, type: "pulumi-nodejs:dynamic/keboola:Branch", inputs: { __owner: branchUrn, name: "feature-x", description: "Try the v2 API" }, outputs: {}, propertyDependencies: {} },
    });
    const users = stepOf(preview, "users").newState!;
    users.inputs!.branchId = UNKNOWN;
    users.propertyDependencies = { ...users.propertyDependencies, branchId: [branchUrn] };
    const text = review(preview);
    expect(text).toContain("| Branch | 1 |");
    expect(text).toContain("#### Branch `feature`: create");
    expect(text).toContain("- `name`: `\"feature-x\"`");
    const diagram = mermaidOf(text);
    expect(diagram).toMatch(/subgraph branch_feature\["Branch feature \(created\)"\]\n {4}componentconfig_users\[/);
    expect(diagram).toMatch(/class .*branch_feature.* created/);
  });
});

describe("review: configurations as changed paths", () => {
  it("shows each changed path of a configuration, not the whole document", () => {
    const text = review(fixtureText("quickstart-change"));
    expect(text).toContain("- `configuration.parameters.api.baseUrl`: `\"https://api.example.com/v1/\"` → `\"https://api.example.com/v2/\"`");
    expect(text).not.toContain("outputBucket");
  });

  it("shows a value known only after up as such, naming what changes first", () => {
    expect(review(fixtureText("quickstart-change"))).toContain("- `variables.valuesRowId`: `\"100000001\"` → _(known after up)_ (from VariableConfig `users-vars`, replaced first)");
  });

  it("names flow phases and rows by their name or id, and shows an added phase value by value", () => {
    const text = review(fixtureText("flows-change"));
    expect(text).toContain("- `phases[extract].tasks[0].configId`: `\"orders-extractor\"` → `\"orders-extractor-v2\"`");
    expect(text).toContain("- `phases[again]`: (added)\n  - `dependsOn`: `[\"extract\"]`\n  - `name`: `\"again\"`");
    expect(text).toContain("- `cron`: `\"0 3 * * *\"` → `\"0 4 * * *\"`");
  });
});

describe("review: secrets are never shown", () => {
  it("says that a # value from stack config changed, when nothing else explains the update", () => {
    const text = review(fixtureText("secret-changed"));
    expect(fixtureText("secret-changed")).toContain('"#token": "[secret]"');
    expect(text).toContain("- `configuration.parameters.api.http.headers.#token`: changed (secret, not shown)");
  });

  it("says that a # value the preview shows (a ciphertext literal) changed, without either value", () => {
    const preview = fixtureText("cipher-changed");
    const ciphers = [...new Set(preview.match(/KBC::ProjectSecure::[A-Za-z0-9+/=]+/g))];
    expect(ciphers).toHaveLength(2);
    const text = review(preview);
    expect(text).toContain("- `rows[Active].configuration.parameters.#apiKey`: changed (secret, not shown)");
    expect(text).not.toContain("KBC::");
  });

  it("hides a plain # value, a ciphertext under any key and an ingestion URL's secret", () => {
    const preview = fixture("cipher-changed");
    const users = stepOf(preview, "users");
    const rows = (s: typeof users.oldState) => (s!.inputs!.rows as Array<{ configuration: { parameters: Record<string, unknown> } }>)[0].configuration.parameters;
    rows(users.oldState)["#apiKey"] = "plain-old-password-1";
    rows(users.newState)["#apiKey"] = "plain-new-password-2";
    rows(users.newState)["#added"] = { user: "admin-name-3", pass: "plain-added-4" };
    rows(users.newState).copyOfCipher = "KBC::ProjectSecure::c2VjcmV0LWNpcGhlcnRleHQ=";
    const legacy = stepOf(preview, "legacy");
    legacy.newState!.inputs!.description = "send to https://stream.example.com/stream/4242/legacy-events/AbCdEfGhIjKlMnOpQrStUvWx";
    legacy.op = "update";
    const text = review(preview);
    for (const secret of ["plain-old-password-1", "plain-new-password-2", "admin-name-3", "plain-added-4", "c2VjcmV0LWNpcGhlcnRleHQ", "AbCdEfGhIjKlMnOpQrStUvWx"]) expect(text).not.toContain(secret);
    expect(text).toContain("- `rows[Active].configuration.parameters.#apiKey`: changed (secret, not shown)");
    expect(text).toContain("- `rows[Active].configuration.parameters.#added`: (added)\n  - `pass`: `\"[secret]\"`\n  - `user`: `\"[secret]\"`");
    expect(text).toContain("- `rows[Active].configuration.parameters.copyOfCipher`: added (secret, not shown)");
    expect(text).toContain("/stream/4242/legacy-events/[secret]");
  });

  it("hides # values and ciphertexts of a created resource", () => {
    const preview = fixture("quickstart-first");
    const config = stepOf(preview, "users").newState!.inputs!.configuration as { parameters: Record<string, unknown> };
    config.parameters["#password"] = "created-plain-5";
    config.parameters.cipher = "KBC::ComponentSecure::Y3JlYXRlZC1jaXBoZXI=";
    const text = review(preview);
    expect(text).not.toContain("created-plain-5");
    expect(text).not.toContain("Y3JlYXRlZC1jaXBoZXI");
    expect(text).toContain("- `configuration.parameters.#password`: `\"[secret]\"`");
    expect(text).toContain("- `configuration.parameters.cipher`: `\"[secret]\"`");
  });

  it("says which Pulumi secrets it cannot compare when other inputs changed too", () => {
    expect(review(fixtureText("quickstart-change"))).toContain("- not compared: `configuration.parameters.api.http.headers.#token` (Pulumi secrets, hidden on both sides of the preview: it may have changed too)");
  });
});

describe("review: sink mappings and table data", () => {
  it("shows a sink's columns before and after as one table", () => {
    const text = review(fixtureText("quickstart-change"));
    expect(text).toContain("| + | `country` | path | `user.country`, default `\"\"`, raw string |");
    expect(text).toContain("|  | `summary` | template | `Body('user.id') + ' did ' + Body('action', 'nothing')`, raw string |");
    expect(text).toContain("- events go to `in.c-quickstart.actions_v2` from now on");
  });

  it("marks removed, changed and moved columns", () => {
    const preview = fixture("quickstart-change");
    const columns = stepOf(preview, "actions").newState!.inputs!.columns as Array<Record<string, unknown>>;
    const [id, user, action, country, summary] = columns;
    stepOf(preview, "actions").newState!.inputs!.columns = [user, id, { ...action, path: "event.action" }, country];
    void summary;
    const text = review(preview);
    expect(text).toContain("| ↕ | `user` | path | `user.id`, raw string |");
    expect(text).toContain("| ↕ | `id` | uuid | _event id_ |");
    expect(text).toContain("| ~ | `action` | path | `action`, default `\"unknown\"`, raw string → `event.action`, default `\"unknown\"`, raw string |");
    expect(text).toContain("| − | `summary` | template |");
  });

  it("shows a table's reload with its file and size, as a warning", () => {
    const text = review(fixtureText("quickstart-change"));
    expect(text).toContain("> - **Data reload:** Table `countries` (`in.c-reference.countries`): its rows are replaced by those of `examples/quickstart/countries.csv` (59 B → 71 B, sha256 7953342497ab… → 48b532d2dd0c…).");
    expect(text).toContain("- data: `examples/quickstart/countries.csv`, 59 B → 71 B");
  });
});

describe("review: warnings", () => {
  it("warns of a replacement with its old and new id and everything that refers to it", () => {
    expect(review(fixtureText("quickstart-change"))).toContain(
      "> - **Replaced:** VariableConfig `users-vars` (`keboola.variables/kp-edd3ebf68adcb49f1321` → `keboola.variables/users-vars-v2`), because `configId` changed: a new configuration is created under the new id and the old one deleted. Referenced by ComponentConfig `users` (updated) through `variables`.",
    );
    const flows = review(fixtureText("flows-change"));
    expect(flows).toContain("Referenced by Flow `nightly` (updated) through `phases`; JobRun `orders-first-run` (replaced) through `configId`.");
    expect(flows).toContain("> - **Replaced:** JobRun `orders-first-run` (`job 1000001` → a new job), because `configId` changed: the job runs again.");
  });

  it("finds referrers by id where Pulumi recorded no dependency (ids written as literals)", () => {
    const preview = fixture("flows-change");
    for (const step of preview.steps) for (const side of [step.oldState, step.newState]) if (side) side.propertyDependencies = {};
    expect(review(preview)).toContain("Referenced by Flow `nightly` (updated) through `phases`; JobRun `orders-first-run` (replaced) through `configId`.");
  });

  it("warns of every delete with what it does in Keboola", () => {
    const text = review(fixtureText("quickstart-change"));
    expect(text).toContain("> - **Deleted:** Source `legacy` (`legacy-events`): its ingestion URL stops accepting events, and the service deletes its sinks and their settings with it.");
  });

  it("puts a failed preview first, with its diagnostics", () => {
    const text = review(fixtureText("column-refused"));
    expect(text).toContain("**The preview failed**");
    expect(text).toContain("> [!CAUTION]\n> The preview failed: `pulumi up` would not run as shown here.");
    expect(text).toContain('the mapping does not match the existing table "in.c-quickstart.actions".');
  });
});

describe("review: the diagram", () => {
  it("draws sources to sinks to tables, tables in buckets, variables to configurations", () => {
    const diagram = mermaidOf(golden("quickstart-change.md"));
    expect(diagram.split("\n")[0]).toBe("flowchart LR");
    for (const edge of ["source_events --> sink_actions", "sink_actions --> table_in_c_quickstart_actions_v2", "variableconfig_users_vars -.-> componentconfig_users", "source_events -.- sourcesettings_events_settings"]) expect(diagram).toContain(edge);
    expect(diagram).toMatch(/subgraph bucket_in_c_reference\["Bucket reference: in.c-reference"\]\n {4}table_countries\[/);
  });

  it("draws configurations to flows to schedules, and job runs", () => {
    const diagram = mermaidOf(review(fixtureText("flows-change")));
    for (const edge of ["componentconfig_orders_extractor --> flow_nightly", "flow_nightly --> schedule_nightly", "componentconfig_orders_extractor --> jobrun_orders_first_run"]) expect(diagram).toContain(edge);
  });

  it("gives each change its class, deleted objects included", () => {
    const diagram = mermaidOf(golden("quickstart-change.md"));
    expect(diagram).toContain("class componentconfig_users,sink_actions,table_countries updated");
    expect(diagram).toContain("class variableconfig_users_vars replaced");
    expect(diagram).toContain('source_legacy(["Source<br/>legacy<br/>(deleted)"])');
    expect(diagram).toContain("class source_legacy deleted");
    expect(mermaidOf(review(fixtureText("quickstart-first")))).toMatch(/class bucket_in_c_reference,componentconfig_users,.*source_events.* created/);
  });

  it("draws what the changes refer to when unchanged resources are left out", () => {
    const diagram = mermaidOf(golden("quickstart-change-plain.md"));
    expect(diagram).toContain('source_events(["Source<br/>events"])');
    expect(diagram).not.toContain("sink_raw");
  });
});

describe("review: a sink's examples before and after the change (issue 27)", () => {
  it("shows each example's row under the old and the new mapping, marking the ones that change", () => {
    const preview = fixture("quickstart-change");
    const step = stepOf(preview, "actions");
    const examples = [
      { payload: { user: { id: "u-1" }, action: "signup" }, expect: { user: "u-1" } },
      { payload: { user: { id: "u-2" } }, expect: { user: "u-2" } },
    ];
    step.oldState!.inputs = { ...step.oldState!.inputs, examples };
    // The new mapping reads the action from another path: the first example's summary changes.
    const columns = (step.newState!.inputs!.columns as Array<Record<string, unknown>>).map((c) =>
      c.name === "summary" ? { ...c, template: { language: "jsonnet", content: "Body('user.id') + ' did ' + Body('event', 'nothing')" } } : c,
    );
    step.newState!.inputs = { ...step.newState!.inputs, columns, examples };
    const text = renderReview(JSON.stringify(preview));
    const section = text.slice(text.indexOf("#### Sink `actions`"));
    expect(section).toMatch(/Examples \(2 of 2 change\w*\):/);
    expect(section).toContain("| 0 | `{\"user\":{\"id\":\"u-1\"},\"action\":\"signup\"}` |");
    expect(section).toMatch(/summary: `u-1 did signup`.*\| .*summary: `u-1 did nothing`.* \*\*changed\*\* \|/);
    expect(section).toMatch(/id: _\(varies\)_/);
  });

  it("shows a new sink's examples as the rows it writes", () => {
    const preview = fixture("quickstart-first");
    const step = stepOf(preview, "actions");
    step.newState!.inputs = { ...step.newState!.inputs, examples: [{ payload: { user: { id: "u-9" }, action: "login" }, expect: { user: "u-9" } }] };
    const text = renderReview(JSON.stringify(preview));
    const section = text.slice(text.indexOf("#### Sink `actions`"));
    expect(section).toMatch(/Examples \(rows this sink writes\):/);
    expect(section).toMatch(/\| 0 \| .* \| _\(new sink\)_ \| id: _\(varies\)_, user: `u-9`, action: `login`, summary: `u-9 did login` \|/);
  });
});
