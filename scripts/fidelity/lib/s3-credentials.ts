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
    if (!value || typeof value !== "object") return;
    if (Array.isArray(value)) {
      for (const v of value) this.snoop(v, slot);
      return;
    }
    const o = value as Record<string, unknown>;
    if (typeof o.AccessKeyId === "string" && typeof o.SecretAccessKey === "string") {
      this.byKey.set(o.AccessKeyId, { secret: o.SecretAccessKey, slot });
    }
    for (const v of Object.values(o)) if (v && typeof v === "object") this.snoop(v, slot);
  }
}
