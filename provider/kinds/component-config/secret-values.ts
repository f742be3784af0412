import { z } from "zod";
import type { KeboolaClient } from "../../api/client";
import { formatPath, isEncrypted, passesUnencrypted, replaceLeaves, secretLeaves, type JsonStep } from "../../../keboola/secrets";
import { tokenInfo } from "../../lifecycle/configurations";

// The `#` values of a configuration and its rows: declared in plain text (a Pulumi secret),
// written to Keboola only as ciphertext, and compared without encrypting again.
//
// Keboola's Storage API stores what it is given, so every plain `#` value is encrypted through the
// Encryption API first (provider/api/encryption.ts), one request per configuration or row that has
// a new or changed value. A ciphertext differs on every encryption, so state keeps, per `#` path,
// the ciphertext written and the plain text it came from (`Sealed`; the field holding them is a
// secret output, encrypted in state). Then:
// - a declared value equal to the recorded plain text stands for the recorded ciphertext: no diff,
//   no encryption, and a write sends that ciphertext again;
// - a declared ciphertext literal (from `export`) stands for itself, as do empty values and
//   `{{variable}}` placeholders, which Keboola leaves unencrypted;
// - anything else is a changed secret: the diff shows an update, and the update encrypts it.
// What `read` finds in Keboola is compared as it is, so a ciphertext someone else wrote shows as
// drift, and a plain value found under a `#` key is recorded as PLAIN_IN_KEBOOLA: drift too,
// without its text ever entering state.

export const sealedSchema = z.object({ cipher: z.string(), plain: z.string() }).strict();
/** Per `#` path (formatPath) of one document: what was written and what it came from. */
export const sealedDocSchema = z.record(z.string(), sealedSchema);
export type SealedDoc = z.output<typeof sealedDocSchema>;

/** The field of the configuration resources' state (a secret output). */
export const secretValuesSchema = z
  .object({
    configuration: sealedDocSchema.default({}),
    /** By row id. */
    rows: z.record(z.string(), sealedDocSchema).default({}),
  })
  .strict();
export type SecretValues = z.output<typeof secretValuesSchema>;

/** Shown where a `#` value in Keboola is plain text: its text is never kept. */
export const PLAIN_IN_KEBOOLA = "[plain text in Keboola, not encrypted]";

/** A changed secret in a diff's view of a document: equal to nothing Keboola can hold. */
const CHANGED = "[changed secret]";

/** Values written as they are: ciphertexts, empty values and `{{variable}}` placeholders. */
const writtenAsIs = (value: string) => isEncrypted(value) || passesUnencrypted(value);

/**
 * The document as Keboola would hold it if written now, as far as known without encrypting: plain
 * values recorded with their ciphertext become that ciphertext, and `pending` lists the others.
 */
function sealKnown<T>(document: T, recorded: SealedDoc | undefined, changed?: string): { document: T; pending: Array<{ path: JsonStep[]; value: string }> } {
  const pending: Array<{ path: JsonStep[]; value: string }> = [];
  const sealed = replaceLeaves(document, (path, value) => {
    if (writtenAsIs(value)) return value;
    const known = recorded?.[formatPath(path)];
    if (known && known.plain === value) return known.cipher;
    pending.push({ path, value });
    return changed;
  });
  return { document: sealed, pending };
}

/** For diff: the document as Keboola holds it when nothing changed; a changed secret is CHANGED. */
export function expectedRemote<T>(document: T, recorded: SealedDoc | undefined): T {
  return sealKnown(document, recorded, CHANGED).document;
}

/** Encrypts a flat `{"#<path>": plain}` object for the configuration's component. */
export type Encrypt = (values: Record<string, string>) => Promise<Record<string, string>>;

/** The encryption of one component's values in the client's project (the token's owner). */
export function encryptorFor(client: KeboolaClient, componentId: string): Encrypt {
  return async (values) => {
    const [api, token] = await Promise.all([client.encryption(), tokenInfo(client)]);
    return api.encrypt(token.owner.id, componentId, values);
  };
}

/**
 * The document to send: recorded ciphertexts where the plain text is unchanged, the rest
 * encrypted in one request (none when nothing is new). Returns it with what to record.
 */
export async function sealForWrite<T>(encrypt: Encrypt, document: T, recorded: SealedDoc | undefined): Promise<{ document: T; record: SealedDoc }> {
  const known = sealKnown(document, recorded);
  let written = new Map<string, string>();
  if (known.pending.length) {
    // kbc's form: one flat object keyed `#<path>` (keboola-as-code internal/pkg/plan/encrypt/executor.go).
    const request = Object.fromEntries(known.pending.map((p) => [`#${formatPath(p.path)}`, p.value]));
    const answer = await encrypt(request);
    // Every value comes back encrypted: EncryptionApi.encrypt refuses an answer that leaves one
    // out or in plain text.
    written = new Map(known.pending.map((p) => [formatPath(p.path), answer[`#${formatPath(p.path)}`]]));
  }
  // The plain values left in known.document are the ones just encrypted (undefined keeps a value).
  const sealed = replaceLeaves(known.document, (path) => written.get(formatPath(path)));
  // What stands for each plain value: the new ciphertext, or else the recorded one it was sealed
  // with (sealKnown leaves no other plain value).
  const record: SealedDoc = {};
  for (const leaf of secretLeaves(document)) {
    if (writtenAsIs(leaf.value)) continue;
    const key = formatPath(leaf.path);
    record[key] = { cipher: written.get(key) ?? recorded![key].cipher, plain: leaf.value };
  }
  return { document: sealed, record };
}

/** For state: a `#` value Keboola holds in plain text is recorded as PLAIN_IN_KEBOOLA. */
export function withoutPlainText<T>(document: T): T {
  return replaceLeaves(document, (_path, value) => (writtenAsIs(value) ? value : PLAIN_IN_KEBOOLA));
}
