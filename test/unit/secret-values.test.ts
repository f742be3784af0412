import { describe, expect, it } from "vitest";
import { expectedRemote, PLAIN_IN_KEBOOLA, sealForWrite, withoutPlainText, type Encrypt } from "../../provider/kinds/component-config/secret-values";
import { EncryptionApi } from "../../provider/api/encryption";
import type { HttpClient } from "../../provider/api/http";
import { formatPath, isEncrypted, isVariablePlaceholder, maskIngestionSecrets, secretLeaves } from "../../keboola/secrets";

// The sealing of `#` values, with a counting stand-in for the Encryption API.

function fakeEncryption() {
  const calls: Array<Record<string, string>> = [];
  let n = 0;
  const encrypt: Encrypt = async (values) => {
    calls.push(values);
    return Object.fromEntries(Object.entries(values).map(([k]) => [k, `KBC::ProjectSecure::c${++n}`]));
  };
  return { encrypt, calls };
}

const doc = {
  parameters: {
    "#token": "t1",
    "#db": { "#password": "p1", host: "h" },
    list: [{ "#key": "k1" }, "#not-a-key", { "#key": "" }],
    "#fromVariable": "{{var}}",
    "#already": "KBC::ComponentSecure::abc",
    "#number": 5,
  },
};

describe("secret values", () => {
  it("recognises the Go SDK's ciphertexts, legacy ones included, and formats paths as kbc does", () => {
    for (const c of ["KBC::ProjectSecure::eJx", "KBC::ComponentSecure::x", "KBC::ConfigSecure::x", "KBC::ProjectWideSecure::x", "KBC::ProjectSecureKV::x", "KBC::BranchTypeSecure::x", "KBC::Encrypted==abc", "KBC::ComponentProjectEncrypted==abc"]) {
      expect(isEncrypted(c), c).toBe(true);
    }
    for (const p of ["plain", "KBC::ProjectSecure::", "KBC::Something::x", "kbc::ProjectSecure::x", ""]) expect(isEncrypted(p), p).toBe(false);
    // A cipher is the whole value, from its first character: text before it is a plain value that
    // merely contains one, which the provider must encrypt (object-encryptor tests the prefix).
    for (const p of ["my KBC::ProjectSecure::eJx", " KBC::Encrypted==abc", "xKBC::ComponentProjectEncrypted==abc"]) expect(isEncrypted(p), p).toBe(false);
    expect(formatPath(["parameters", "list", 0, "#key"])).toBe("parameters.list[0].#key");
    // Strings under # keys at any depth; scalars in arrays and non-strings are not secret values.
    expect(secretLeaves(doc).map((l) => formatPath(l.path))).toEqual([
      "parameters.#token",
      "parameters.#db.#password",
      "parameters.list[0].#key",
      "parameters.list[2].#key",
      "parameters.#fromVariable",
      "parameters.#already",
    ]);
  });

  it("encrypts new plain values in one flat request keyed #<path>, leaving ciphertexts, empty values and placeholders", async () => {
    const { encrypt, calls } = fakeEncryption();
    const sealed = await sealForWrite(encrypt, doc, undefined);
    expect(calls).toEqual([{ "#parameters.#token": "t1", "#parameters.#db.#password": "p1", "#parameters.list[0].#key": "k1" }]);
    expect(sealed.document.parameters["#token"]).toBe("KBC::ProjectSecure::c1");
    expect(sealed.document.parameters["#db"]).toEqual({ "#password": "KBC::ProjectSecure::c2", host: "h" });
    expect(sealed.document.parameters.list).toEqual([{ "#key": "KBC::ProjectSecure::c3" }, "#not-a-key", { "#key": "" }]);
    expect(sealed.document.parameters["#already"]).toBe("KBC::ComponentSecure::abc");
    expect(sealed.document.parameters["#fromVariable"]).toBe("{{var}}");
    expect(sealed.record).toEqual({
      "parameters.#token": { cipher: "KBC::ProjectSecure::c1", plain: "t1" },
      "parameters.#db.#password": { cipher: "KBC::ProjectSecure::c2", plain: "p1" },
      "parameters.list[0].#key": { cipher: "KBC::ProjectSecure::c3", plain: "k1" },
    });
    // The input is not changed.
    expect(doc.parameters["#token"]).toBe("t1");
  });

  it("reuses recorded ciphertexts of unchanged values: no request at all, or one with only the changed value", async () => {
    const { encrypt, calls } = fakeEncryption();
    const first = await sealForWrite(encrypt, doc, undefined);
    const again = await sealForWrite(encrypt, doc, first.record);
    expect(calls).toHaveLength(1);
    expect(again).toEqual(first);

    const changed = structuredClone(doc);
    changed.parameters["#db"]["#password"] = "p2";
    const third = await sealForWrite(encrypt, changed, first.record);
    expect(calls[1]).toEqual({ "#parameters.#db.#password": "p2" });
    expect(third.document.parameters["#token"]).toBe(first.document.parameters["#token"]);
    expect(third.record["parameters.#db.#password"]).toEqual({ cipher: "KBC::ProjectSecure::c4", plain: "p2" });
  });

  it("diff view: unchanged plain text is its recorded ciphertext, a changed one equals nothing Keboola holds", async () => {
    const { encrypt } = fakeEncryption();
    const first = await sealForWrite(encrypt, doc, undefined);
    expect(expectedRemote(doc, first.record)).toEqual(first.document);
    const changed = structuredClone(doc);
    changed.parameters["#token"] = "t2";
    const view = expectedRemote(changed, first.record);
    expect(view.parameters["#token"]).not.toBe(first.document.parameters["#token"]);
    expect(view.parameters["#token"]).not.toBe("t2");
    // Nothing recorded (after an import): every plain value is a change.
    expect(expectedRemote(doc, undefined)).not.toEqual(first.document);
  });

  it("state never keeps a plain value found in Keboola", () => {
    const remote = { "#a": "plain!", "#b": "KBC::ProjectSecure::x", "#c": "", nested: [{ "#d": "also plain" }] };
    expect(withoutPlainText(remote)).toEqual({ "#a": PLAIN_IN_KEBOOLA, "#b": "KBC::ProjectSecure::x", "#c": "", nested: [{ "#d": PLAIN_IN_KEBOOLA }] });
    // What state and a refresh's diff show instead.
    expect(PLAIN_IN_KEBOOLA).toBe("[plain text in Keboola, not encrypted]");
  });

  it("a changed secret differs in the diff view even from an empty value in Keboola", async () => {
    const { encrypt } = fakeEncryption();
    const first = await sealForWrite(encrypt, { "#token": "t1" }, undefined);
    expect(expectedRemote({ "#token": "t2" }, first.record)).toEqual({ "#token": "[changed secret]" });
  });

  it("a value now given as a ciphertext, a placeholder or empty drops its recorded plain text", async () => {
    const { encrypt, calls } = fakeEncryption();
    const first = await sealForWrite(encrypt, { "#a": "p1", "#b": "p2", "#c": "p3" }, undefined);
    const again = await sealForWrite(encrypt, { "#a": "KBC::ProjectSecure::mine", "#b": "{{var}}", "#c": "" }, first.record);
    expect(again).toEqual({ document: { "#a": "KBC::ProjectSecure::mine", "#b": "{{var}}", "#c": "" }, record: {} });
    expect(calls).toHaveLength(1);
  });

  it("the Encryption API's answer is refused when it leaves a value out or in plain text, so nothing is written", async () => {
    const api = (body: unknown) => new EncryptionApi({ request: async () => ({ body }) } as unknown as HttpClient, "https://encryption.test");
    const values = { "#a": "p1", "#b": "" };
    await expect(api({ "#a": "KBC::ProjectSecure::c1", "#b": "" }).encrypt(1, "c", values)).resolves.toEqual({ "#a": "KBC::ProjectSecure::c1", "#b": "" });
    await expect(api({ "#b": "" }).encrypt(1, "c", values)).rejects.toThrow("the Encryption API at https://encryption.test answered POST /encrypt without the value of #a");
    await expect(api(values).encrypt(1, "c", values)).rejects.toThrow("the Encryption API at https://encryption.test did not encrypt #a: nothing was written");
    await expect(api([]).encrypt(1, "c", values)).rejects.toThrow("answered POST /encrypt without a JSON object: it is not Keboola's Encryption API");
  });
});

describe("variable placeholders under # keys", () => {
  // object-encryptor RegexHelper::matchesVariable: the whole value is one {{name}}, blanks allowed
  // inside the braces (PCRE's \s: space, \t, \n, \v, \f, \r), and one final newline.
  it("is the whole value, with any of PCRE's blanks inside the braces", () => {
    for (const v of ["{{limit}}", "{{ limit }}", "{{\u000blimit\u000b}}", "{{\tlimit\f}}", "{{a.b-c_1}}", "{{limit}}\n"]) expect(isVariablePlaceholder(v), JSON.stringify(v)).toBe(true);
    for (const v of ["x{{limit}}", "{{limit}}x", "{{limit}} ", "{{}}", "{{li mit}}", "{{limit}}\n\n"]) expect(isVariablePlaceholder(v), JSON.stringify(v)).toBe(false);
  });
});

describe("ingestion URLs in messages", () => {
  it("replaces the whole secret of an HTTP or OTLP source's URL, and nothing shorter than a secret", () => {
    expect(maskIngestionSecrets('POST https://stream.keboola.com/stream/123/my-source/AbCdEf0123456789XyZ failed: "boom"')).toBe(
      'POST https://stream.keboola.com/stream/123/my-source/[secret] failed: "boom"',
    );
    expect(maskIngestionSecrets("https://stream.keboola.com/otlp/123/traces/AbCdEf0123456789XyZ/v1/traces")).toBe("https://stream.keboola.com/otlp/123/traces/[secret]/v1/traces");
    // A path step of fewer than 16 letters and digits is not a source's secret.
    expect(maskIngestionSecrets("https://stream.keboola.com/stream/123/my-source/short")).toBe("https://stream.keboola.com/stream/123/my-source/short");
  });
});
