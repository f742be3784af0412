import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { EmulatorContext, StackShared } from "../core/context";

// The bytes of the object store, kept apart from the JSON state: an object can be far larger than
// a JSON string may be (a 1 GB load, in parts). Without a state file they live in memory; with one,
// in files next to it (`<stateFile>.objects/<sha256 of the object key>`), so a restart from the
// state file still serves them. The state keeps only each object's metadata (state.ts).

export interface BlobStore {
  get(key: string): Buffer | undefined;
  put(key: string, data: Buffer): void;
  delete(key: string): void;
}

class MemoryBlobs implements BlobStore {
  private readonly blobs = new Map<string, Buffer>();
  get(key: string): Buffer | undefined {
    return this.blobs.get(key);
  }
  put(key: string, data: Buffer): void {
    this.blobs.set(key, data);
  }
  delete(key: string): void {
    this.blobs.delete(key);
  }
}

class DirectoryBlobs implements BlobStore {
  constructor(private readonly dir: string) {}
  private path(key: string): string {
    return join(this.dir, createHash("sha256").update(key).digest("hex"));
  }
  get(key: string): Buffer | undefined {
    const p = this.path(key);
    return existsSync(p) ? readFileSync(p) : undefined;
  }
  put(key: string, data: Buffer): void {
    mkdirSync(this.dir, { recursive: true });
    writeFileSync(this.path(key), data);
  }
  delete(key: string): void {
    rmSync(this.path(key), { force: true });
  }
}

const stores = new WeakMap<StackShared, BlobStore>();

/**
 * The blob store of an emulator (created on first use): one for the stack, as the object store is
 * (every project's objects are under its own `exp-15/<projectId>/` keys, storage/files.ts).
 */
export function blobs(ctx: EmulatorContext): BlobStore {
  let store = stores.get(ctx.stack);
  if (!store) {
    store = ctx.options.stateFile ? new DirectoryBlobs(`${ctx.options.stateFile}.objects`) : new MemoryBlobs();
    stores.set(ctx.stack, store);
  }
  return store;
}
