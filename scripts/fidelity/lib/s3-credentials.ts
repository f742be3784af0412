import { isRecord } from "../../../keboola/json";

// The S3 credentials the emulators issued, by access key id. The S3 bridge must re-sign each
// request for the emulator (host and path change), so it needs the secret the client signed with;
// the fronts pick the credentials out of Storage answers (files/prepare, a file's
// `?federationToken=1` detail) as they pass through.

export interface IssuedCredential {
  secret: string;
  /** The slot whose emulator issued it, i.e. the one that holds the objects. */
  slot: number;
}

export class IssuedCredentials {
  private readonly byKey = new Map<string, IssuedCredential>();

  get(accessKeyId: string): IssuedCredential | undefined {
    return this.byKey.get(accessKeyId);
  }

  /** Records every `{AccessKeyId, SecretAccessKey}` anywhere in a decoded answer. */
  snoop(value: unknown, slot: number): void {
    if (Array.isArray(value)) {
      for (const v of value) this.snoop(v, slot);
      return;
    }
    if (!isRecord(value)) return;
    if (typeof value.AccessKeyId === "string" && typeof value.SecretAccessKey === "string") {
      this.byKey.set(value.AccessKeyId, { secret: value.SecretAccessKey, slot });
    }
    for (const v of Object.values(value)) if (v && typeof v === "object") this.snoop(v, slot);
  }
}
