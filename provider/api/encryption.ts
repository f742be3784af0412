import type { HttpClient } from "./http";
import { registerSecret } from "./errors";
import { isEncrypted, passesUnencrypted } from "../../keboola/secrets";
import { isRecord } from "../../keboola/json";

// The Encryption API: turns the plain values of a configuration's `#` keys into ciphertexts that
// only the stack's job runner can open. Storage stores what it is given, so every `#` value is
// sent here before it is written (see provider/lifecycle/secret-values.ts).
//
// The contract relied on:
// - The address is the `encryption` service of the Storage index (`GET /v2/storage`), as the
//   official clients find it (keboola/keboola-sdk-go `pkg/keboola/encryption.go`: EncryptionAPI).
// - `POST {encryption}/encrypt?componentId=<component>&projectId=<project>` with a JSON object
//   answers the same object with every string under a `#` key replaced by a
//   `KBC::ProjectSecure::...` ciphertext; values that are ciphertexts already come back as they are.
//   No configuration id is given, so a ciphertext is valid for the whole component in the project
//   and survives a configuration's re-creation (keboola-as-code
//   `internal/pkg/plan/encrypt/executor.go`: `EncryptRequest(projectID, &componentID, nil, nil, data)`).
// - `kbc` sends one flat object per configuration or row, keyed `#<path>` (every key starts with
//   `#`, so every value is encrypted); we do the same.
// - No Storage token is needed (the SDK sends it through its public API client): we send none.
// - The project id is the token's `owner.id` from `GET /v2/storage/tokens/verify`.
// - Encrypting has no side effect, so a failed call is simply repeated.

export class EncryptionApi {
  constructor(
    private readonly http: HttpClient,
    readonly baseUrl: string,
  ) {}

  /** Encrypts a flat `{"#<path>": plain}` object for the component of the project. */
  async encrypt(projectId: number | string, componentId: string, values: Record<string, string>): Promise<Record<string, string>> {
    for (const v of Object.values(values)) registerSecret(v);
    const answer = await this.http.request<unknown>({
      service: "encryption",
      baseUrl: this.baseUrl,
      method: "POST",
      path: "/encrypt",
      query: { componentId, projectId: String(projectId) },
      json: values,
      retry: "idempotent",
      anonymous: true,
    });
    const body = answer.body;
    if (!isRecord(body)) {
      throw new Error(`the Encryption API at ${this.baseUrl} answered POST /encrypt without a JSON object: it is not Keboola's Encryption API`);
    }
    const out: Record<string, string> = {};
    for (const key of Object.keys(values)) {
      const v = body[key];
      if (typeof v !== "string") throw new Error(`the Encryption API at ${this.baseUrl} answered POST /encrypt without the value of ${key}`);
      // Never write a value the service left in plain text (only placeholders and empty values may stay as they are).
      if (!isEncrypted(v) && !passesUnencrypted(v)) throw new Error(`the Encryption API at ${this.baseUrl} did not encrypt ${key}: nothing was written`);
      out[key] = v;
    }
    return out;
  }
}

