import { randomBytes } from "node:crypto";

// The Encryption API's part of the emulator state: the emulated stack's own key, random at the
// first start and kept in the state file, so ciphers made before a restart still open after it
// (as a real stack's ciphers work only on that stack).

export interface EncryptionState {
  /** AES-256 key, base64 (32 bytes). */
  key: string;
}

export function initialEncryptionState(): EncryptionState {
  return { key: randomBytes(32).toString("base64") };
}
