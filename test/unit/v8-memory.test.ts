import { getHeapSpaceStatistics } from "node:v8";
import { describe, expect, it } from "vitest";
import { collectYoungGeneration } from "../../provider/api/v8-memory";

// The upload's young GC (provider/api/v8-memory.ts). What it must do: collect V8's young
// generation now (read synchronously from the new space's size, so no timing is involved), which
// frees the dead buffers zlib's output chunks leave (64 KiB each), and leave no `gc` global behind.

const MB = 1024 * 1024;

const newSpaceUsed = (): number => getHeapSpaceStatistics().find((s) => s.space_name === "new_space")?.space_used_size ?? NaN;

/** Waits up to `ms` for `cond`, looking every 10 ms. */
async function until(cond: () => boolean, ms: number): Promise<boolean> {
  for (const deadline = Date.now() + ms; !cond(); ) {
    if (Date.now() > deadline) return false;
    await new Promise<void>((resolve) => setTimeout(resolve, 10));
  }
  return true;
}

describe("collectYoungGeneration", () => {
  it("collects the young generation at once, freeing dead 64 KiB buffers, and leaves no gc global", async () => {
    const hadGc = typeof globalThis.gc;
    collectYoungGeneration(); // the first call makes the gc function
    // That GC may free buffers other files of this worker left (the fast project shares workers),
    // and V8 releases their memory on a background thread: the base is taken once it has settled,
    // else it counts memory about to go and the buffers below seem not to add up.
    let last = -1;
    await until(() => {
      const now = process.memoryUsage().arrayBuffers;
      const settled = now === last;
      last = now;
      return settled;
    }, 5_000);
    const base = process.memoryUsage().arrayBuffers;
    // Dead buffers as zlib leaves them.
    let dead: Buffer[] | undefined = Array.from({ length: 64 }, () => Buffer.allocUnsafe(64 * 1024));
    expect(process.memoryUsage().arrayBuffers - base).toBeGreaterThan(3.5 * MB);
    dead = undefined;
    const before = newSpaceUsed();
    expect(newSpaceUsed()).toBeGreaterThanOrEqual(before); // nothing collects it meanwhile
    collectYoungGeneration();
    // What is left in the young generation is what survived: far less than before.
    expect(newSpaceUsed()).toBeLessThan(before / 2);
    // V8 may release a collected buffer's memory on a background thread: wait for it.
    expect(await until(() => process.memoryUsage().arrayBuffers - base < MB / 2, 5_000)).toBe(true);
    expect(typeof globalThis.gc).toBe(hadGc + (dead === undefined ? "" : "?"));
  });
});
