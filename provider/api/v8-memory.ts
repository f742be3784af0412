import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

// Two V8 settings that keep the dynamic provider's memory low while it loads a large file. The
// provider cannot pass flags to node: Pulumi starts that process. Both were measured in the data
// bench (1 GB, CONTRIBUTING.md "Table data") and in a process that loads @pulumi/pulumi, scans and uploads the same file.
// Much of the excess is memory that was already freed: malloc keeps the pages of freed blocks, so
// a short burst of allocation raises the RSS until the process exits.
//
// 1. A young-generation GC after each part an upload sends (`collectYoungGeneration`). Node's
//    zlib stream allocates a new output buffer each time it fills one (64 KiB). V8 frees a dead
//    buffer's memory only at a GC. A gzip upload allocates little on the JS heap, so no young GC
//    comes, and V8's external-memory rule waits until tens of MB of dead buffers have piled up.
//    Without the GC, the malloc heap grew from 13 to 50 MB during the upload. With a minor GC after
//    each 5 MiB part, the upload adds 10-17 MB instead of 36-38 MB. The GC takes about 1 ms,
//    because the only objects still alive are the few of the upload in flight.
// 2. WebAssembly stays on V8's baseline compiler, Liftoff (`keepWasmOnBaselineCompiler`). undici
//    parses HTTP with llhttp compiled to WebAssembly. Once its parse loop is hot, V8 recompiles it
//    with TurboFan on a background thread, which takes about 36 MB of compiler memory. In about
//    half of the runs, malloc kept that memory for the rest of the process. Liftoff code is
//    slower, but it parses Keboola's small JSON answers in no measurable time.

let gc: NodeJS.GCFunction | null | undefined;

// `--expose-gc` gives `gc` to the contexts made while it is on. It is turned on just long enough
// to make one such context, so the program's own context never gets a `gc` global. jest's leak
// detector does the same.
function gcFunction(): NodeJS.GCFunction | null {
  if (gc !== undefined) return gc;
  const wasOn = typeof globalThis.gc === "function";
  try {
    setFlagsFromString("--expose-gc");
    const found: NodeJS.GCFunction | undefined = runInNewContext("typeof gc === 'function' ? gc : undefined");
    gc = found ?? null;
  } catch {
    gc = null;
  } finally {
    // A process started with `node --expose-gc` keeps it.
    if (!wasOn) setFlagsFromString("--no-expose-gc");
  }
  return gc;
}

/** Collects V8's young generation (about a millisecond), freeing an upload's dead buffers. A no-op where V8 offers no gc. */
export function collectYoungGeneration(): void {
  gcFunction()?.({ type: "minor" });
}

/** Compiles WebAssembly (undici's HTTP parser) with Liftoff only; call before the first request. */
export function keepWasmOnBaselineCompiler(): void {
  setFlagsFromString("--liftoff-only");
}
