import { describe, expect, it } from "vitest";
import { collectYoungGeneration } from "../../provider/api/v8-memory";

// The upload's young GC (provider/api/v8-memory.ts): dead buffers the size zlib's output chunks
// have (64 KiB) stay allocated until a GC; collectYoungGeneration frees them at once. Measured
// synchronously: 4 MiB of buffers is far below what makes V8 collect on its own.

const MB = 1024 * 1024;

/** Allocates 4 MiB of 64 KiB buffers, drops them, runs `after`; answers the MiB still held. */
function deadBuffersLeft(after: () => void): number {
  const base = process.memoryUsage().arrayBuffers;
  let dead: Buffer[] | undefined = Array.from({ length: 64 }, () => Buffer.allocUnsafe(64 * 1024));
  expect(process.memoryUsage().arrayBuffers - base).toBeGreaterThanOrEqual(4 * MB);
  dead = undefined;
  after();
  return Math.max(0, process.memoryUsage().arrayBuffers - base) / MB + (dead === undefined ? 0 : 1);
}

describe("collectYoungGeneration", () => {
  it("frees dead 64 KiB buffers at once, which otherwise stay; leaves no gc global", () => {
    const hadGc = typeof globalThis.gc;
    collectYoungGeneration(); // the first call makes the gc function
    expect(deadBuffersLeft(() => undefined)).toBeGreaterThanOrEqual(4);
    collectYoungGeneration();
    expect(deadBuffersLeft(collectYoungGeneration)).toBeLessThan(0.5);
    expect(typeof globalThis.gc).toBe(hadGc);
  });
});
