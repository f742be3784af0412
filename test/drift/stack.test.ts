import { describe, expect, it } from "vitest";
import { DriftError, openSecrets, readStack } from "../../provider/drift/stack";
import { settingsOf } from "../../provider/drift/live";
import type { PulumiCli } from "../../provider/pipeline/pulumi";
import { SECRET_SIG, SIG_KEY } from "../../provider/lifecycle/secret-sig";

// `pulumi stack export --show-secrets` prints each secret, at any depth, as the signature object
// with its value's JSON under `plaintext` (pulumi/pulumi pkg/resource/stack/deployment.go
// SerializePropertyValue); without a decrypter the object holds `ciphertext` instead.
const secret = (value: unknown) => ({ [SIG_KEY]: SECRET_SIG, plaintext: JSON.stringify(value) });

describe("the stack's state with its secrets opened", () => {
  it("opens secrets at any depth, in objects and lists, and secrets inside secrets", () => {
    const outputs = {
      name: "Customers",
      configuration: { parameters: { api: { "#token": secret("KBC::ProjectSecure::abc"), baseUrl: "https://x/" } } },
      rows: [{ configuration: secret({ "#key": "KBC::ProjectSecure::def", n: 1 }) }],
      secretValues: secret({ configuration: { "parameters.api.#token": { cipher: "KBC::ProjectSecure::abc", plain: secret("p") } } }),
    };
    expect(openSecrets(outputs)).toEqual({
      name: "Customers",
      configuration: { parameters: { api: { "#token": "KBC::ProjectSecure::abc", baseUrl: "https://x/" } } },
      rows: [{ configuration: { "#key": "KBC::ProjectSecure::def", n: 1 } }],
      secretValues: { configuration: { "parameters.api.#token": { cipher: "KBC::ProjectSecure::abc", plain: "p" } } },
    });
  });

  it("leaves values without secrets as they are, and refuses a secret left encrypted", () => {
    const plain = { a: [1, "two", null, { b: true }] };
    expect(openSecrets(plain)).toEqual(plain);
    expect(() => openSecrets({ token: { [SIG_KEY]: SECRET_SIG, ciphertext: "v1:abc" } })).toThrow(DriftError);
  });
});

describe("the settings each resource is read with", () => {
  /** A Pulumi CLI that answers `stack export` and `config` with these documents. */
  const cli = (deployment: unknown, config: unknown): PulumiCli => ({
    run: async (args) => ({ code: 0, stdout: JSON.stringify(args[0] === "stack" ? { version: 3, deployment } : config), stderr: "" }),
  });
  const provider = (name: string, inputs: Record<string, unknown>) => ({ urn: `urn:pulumi:prod::app::pulumi:providers:keboola::${name}`, id: `${name}-id`, type: "pulumi:providers:keboola", inputs });
  const bucket = (name: string, via: string) => ({
    urn: `urn:pulumi:prod::app::keboola:index:Bucket::${name}`,
    type: "keboola:index:Bucket",
    id: `in.c-${name}`,
    provider: `urn:pulumi:prod::app::pulumi:providers:keboola::${via}::${via}-id`,
    inputs: {},
    outputs: {},
  });

  it("takes an explicit provider's recorded arguments, and a default provider's settings from the stack's config as it is now", async () => {
    const deployment = {
      resources: [
        // The default provider's inputs are the stack config of the last deployment: the token rotated since is in the config below.
        provider("default_0_1_0", { host: "https://h.example.com", token: "rotated-away" }),
        provider("other", { host: "https://other.example.com", token: "other-token" }),
        bucket("a", "default_0_1_0"),
        bucket("b", "other"),
      ],
    };
    const config = { "keboola:host": { value: "https://h.example.com" }, "keboola:token": { value: "current-token", secret: true } };
    const snapshot = await readStack(cli(deployment, config), "prod");
    const [a, b] = snapshot.resources;
    expect(a!.providerInputs).toBeUndefined();
    expect(settingsOf(snapshot, a!, { KBC_TOKEN: "env-token" }).token).toBe("current-token");
    expect(settingsOf(snapshot, b!, { KBC_TOKEN: "env-token" })).toMatchObject({ host: "https://other.example.com", token: "other-token" });
  });
});
