import { describe, expect, it } from "vitest";
import { DriftError, openSecrets } from "../../provider/drift/stack";
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
