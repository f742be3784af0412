import { describe, expect, it } from "vitest";
import { ManifestError, parseManifest, readManifest, type ManifestProblem } from "../../provider/manifest/parse";
import type { StackValues } from "../../provider/manifest/config-values";

// keboola.yaml's `config:` values (Pulumi YAML's `config:` and `${name}`) and each entry's
// `options:`: resolved from a stack's config, every problem at its position with the fix.

function stack(values: Record<string, string>, secret: string[] = []): StackValues {
  return { namespace: "keboola", get: (name) => (name in values ? { value: values[name], secret: secret.includes(name) } : undefined) };
}

function problemsOf(text: string, values?: StackValues): ManifestProblem[] {
  try {
    parseManifest(text, "m.yaml", { stack: values });
  } catch (err) {
    expect(err).toBeInstanceOf(ManifestError);
    return err instanceof ManifestError ? err.problems : [];
  }
  throw new Error("expected the manifest to be refused");
}

const line = (text: string, needle: string) => text.slice(0, text.indexOf(needle)).split("\n").length;

const MANIFEST = `config:
  apiBase: { type: string, description: The API the extractor reads }
  pageSize: { type: integer, default: 100 }
  enabled: { type: boolean, default: false }
  outBucket: { type: string, default: out.c-dev }
  dbPassword: { type: string, secret: true }
configurations:
  users:
    componentId: keboola.ex-generic-v2
    name: Users from \${apiBase}
    configuration:
      parameters:
        api: { baseUrl: "\${apiBase}" }
        limit: \${pageSize}
        note: "cost $\${1} per \${pageSize}"
        "#password": \${dbPassword}
schedules:
  nightly:
    configuration: users
    cron: "0 3 * * *"
    enabled: \${enabled}
`;

describe("config: values", () => {
  it("resolves values from the stack's config with their declared types, defaults where unset, $${ as a literal", () => {
    const read = readManifest(MANIFEST, "m.yaml", { stack: stack({ apiBase: "https://api.example.com", enabled: "true", dbPassword: "s3cret" }, ["dbPassword"]) });
    const users = read.manifest.configurations?.users;
    expect(users?.name).toBe("Users from https://api.example.com");
    expect(users?.configuration).toEqual({ parameters: { api: { baseUrl: "https://api.example.com" }, limit: 100, note: "cost ${1} per 100" } });
    // The secret is never in the data: it moved to the entry's secrets, read with requireSecret.
    expect(users?.secrets).toEqual({ "configuration.parameters.#password": "dbPassword" });
    expect(JSON.stringify(read.manifest)).not.toContain("s3cret");
    expect(read.manifest.schedules?.nightly.enabled).toBe(true);
    expect(read.origins.map((o) => [o.path.join("."), o.names.join(","), o.whole])).toEqual([
      ["configurations.users.name", "apiBase", false],
      ["configurations.users.configuration.parameters.api.baseUrl", "apiBase", true],
      ["configurations.users.configuration.parameters.limit", "pageSize", true],
      ["configurations.users.configuration.parameters.note", "pageSize", false],
      ["configurations.users.configuration.parameters.#password", "dbPassword", true],
      ["schedules.nightly.enabled", "enabled", true],
    ]);
  });

  it("parses list values as JSON and numbers as numbers", () => {
    const text = `config:\n  ids: { type: List<integer> }\n  ratio: { type: number }\nvariables:\n  v:\n    name: V\n    variables: [{ name: a, type: string }]\n    defaultValues: { a: "\${ratio}" }\n`;
    const read = readManifest(text, "m.yaml", { stack: stack({ ids: "[1,2]", ratio: "0.5" }) });
    expect(read.manifest.variables?.v.defaultValues).toEqual({ a: "0.5" });
    expect(problemsOf(text.replace("defaultValues: { a: \"${ratio}\" }", "defaultValues: { a: \"x\${ids}\" }"), stack({ ids: "[1,2]", ratio: "1" }))[0].message).toMatch(/is a list: use it as a whole value/);
  });

  it.each([
    ["an undeclared name", "name: Users from ${apiBase}", "name: Users from ${apiBse}", {}, "configurations.users.name", /\$\{apiBse\} is not declared: add it under config:.*or use one of: apiBase/],
    ["a value with no default the stack does not set", "", "", {}, "configurations.users.name", /\$\{apiBase\} has no value: stack config keboola:apiBase is not set.*pulumi config set apiBase <value>/],
    ["a wrong type", "", "", { pageSize: "ten" }, "config.pageSize", /stack config keboola:pageSize is "ten", not a number: set it with pulumi config set pageSize <integer>/],
    ["a fraction for an integer", "", "", { pageSize: "1.5" }, "config.pageSize", /is 1.5, not a whole number/],
    ["a default of the wrong type", "enabled: { type: boolean, default: false }", "enabled: { type: boolean, default: no-way }", {}, "config.enabled.default", /the default is "no-way", not a boolean/],
    ["a name equal to a provider setting", "outBucket: { type: string, default: out.c-dev }", "host: { type: string, default: x }", {}, "config.host", /"host" is a setting of the provider \(keboola:host\).*name the value otherwise/],
    ["a secret outside a # key", 'api: { baseUrl: "${apiBase}" }', 'api: { baseUrl: "${dbPassword}" }', {}, "configurations.users.configuration.parameters.api.baseUrl", /\$\{dbPassword\} is a secret, and baseUrl is not a # key of a configuration: it would be stored in plain text/],
    ["a secret inside a longer string", 'note: "cost $${1} per ${pageSize}"', 'note: "pw=${dbPassword}"', {}, "configurations.users.configuration.parameters.note", /is a secret: use it as the whole value of a # key/],
    ["an unknown type", "pageSize: { type: integer, default: 100 }", "pageSize: { type: int, default: 100 }", {}, "config.pageSize.type", /must be one of string, integer, number, boolean, or List<...>/],
  ])("refuses %s at its position with the fix", (_what, from, to, values: Record<string, string>, path, message) => {
    const text = from ? MANIFEST.replace(from, to) : MANIFEST;
    const set = { apiBase: "https://a", dbPassword: "p", ...values };
    const problems = problemsOf(text, stack(_what.startsWith("a value with no default") ? {} : set, ["dbPassword"]));
    const p = problems.find((q) => q.path === path);
    expect(p, JSON.stringify(problems)).toBeDefined();
    expect(p?.message).toMatch(message);
    expect(p?.file).toBe("m.yaml");
    const needle = path.startsWith("config.") ? `${path.split(".")[1]}:` : path.endsWith(".name") ? "name: Users" : path.split(".").pop() ?? "";
    expect(p?.line).toBe(line(text, needle));
  });

  it("reports a secret's value never, even when refused", () => {
    const problems = problemsOf(MANIFEST.replace('api: { baseUrl: "${apiBase}" }', 'api: { baseUrl: "${dbPassword}" }'), stack({ apiBase: "x", dbPassword: "TOPSECRET" }, ["dbPassword"]));
    expect(JSON.stringify(problems)).not.toContain("TOPSECRET");
  });
});

const OPTIONS = `buckets:
  sales: { name: sales }
tables:
  orders:
    bucket: sales
    name: orders
    columns: [id]
    options: { dependsOn: [users], retainOnDelete: true }
configurations:
  users:
    componentId: keboola.ex-generic-v2
    name: Users
    configuration: { parameters: { limit: 1 } }
    options:
      protect: true
      ignoreChanges: [configuration.parameters.limit, description]
`;

describe("options: per entry", () => {
  it("keeps each entry's options apart from its fields", () => {
    const read = readManifest(OPTIONS, "m.yaml");
    expect(read.options.get("configurations/users")).toEqual({ protect: true, ignoreChanges: ["configuration.parameters.limit", "description"] });
    expect(read.options.get("tables/orders")).toEqual({ dependsOn: ["users"], retainOnDelete: true });
  });

  it.each([
    ["an unknown option", "protect: true", "protectt: true", "configurations.users.options.protectt", /unknown key "protectt": remove it, or use one of: protect, retainOnDelete, ignoreChanges, dependsOn, deleteBeforeReplace/],
    ["a dependsOn key that does not exist", "dependsOn: [users]", "dependsOn: [userz]", "tables.orders.options.dependsOn[0]", /"userz" is not the key of an entry: name one of: sales, orders, users/],
    ["an ignoreChanges path the kind does not have", "ignoreChanges: [configuration.parameters.limit, description]", "ignoreChanges: [configuration.parameters.limit, descriptoin]", "configurations.users.options.ignoreChanges[1]", /"descriptoin": descriptoin is not a property of this entry; it has: .*description/],
    ["a circle", "bucket: sales\n    name: orders\n    columns: [id]\n    options: { dependsOn: [users]", "bucket: sales\n    name: orders\n    columns: [id]\n    options: { dependsOn: [users]", "", /dependsOn runs in a circle: tables\/orders -> configurations\/users -> tables\/orders/],
  ])("refuses %s", (what, from, to, path, message) => {
    const text = what === "a circle" ? OPTIONS.replace("protect: true", "protect: true\n      dependsOn: [orders]") : OPTIONS.replace(from, to);
    const problems = problemsOf(text);
    const p = problems.find((q) => (path ? q.path === path : message.test(q.message)));
    expect(p, JSON.stringify(problems)).toBeDefined();
    expect(p?.message).toMatch(message);
  });

  it("takes any path below a free-form configuration", () => {
    expect(() => parseManifest(OPTIONS.replace("configuration.parameters.limit", "\"configuration.parameters.deep.er[2].x\""), "m.yaml")).not.toThrow();
  });
});
