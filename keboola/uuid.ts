// Keboola's UUIDs: shared by the Stream mapping (uuid columns) and the emulator (event uuids).
import { randomBytes } from "node:crypto";

/** UUID version 7 (time-ordered), as Keboola generates them (Stream uuid columns, event uuids). */
export function uuidV7(nowMs: number): string {
  const bytes = randomBytes(16);
  const ts = BigInt(nowMs);
  for (let i = 0; i < 6; i++) bytes[i] = Number((ts >> BigInt(8 * (5 - i))) & 0xffn);
  bytes[6] = (bytes[6] & 0x0f) | 0x70;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
