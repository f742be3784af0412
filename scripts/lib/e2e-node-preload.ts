// Preloaded (NODE_OPTIONS=--require) into the Node.js processes the real Pulumi CLI starts during the
// end-to-end tests: the program under the language host and the dynamic provider (and the launcher's
// one-line probes). It makes them start faster and changes nothing they do. Why it exists: the suite
// is CPU-bound on 2 cores, and each such process spent about 1 s of CPU loading modules, 0.5 s of it
// two modules the SDK loads at start and most processes never use (CONTRIBUTING.md, "Slow tests").
//
// Two jobs, each off with its variable unset:
// 1. KEBOOLA_E2E_COMPILE_CACHE=DIR: a V8 code cache of the modules under KEBOOLA_E2E_COMPILE_ROOT
//    (the repository: node_modules/ and dist/), what Node.js 22 does itself with NODE_COMPILE_CACHE.
//    Compiling @pulumi/pulumi's modules was most of each process' start; a cached module skips it.
//    One cache file per module path, holding the module's size and mtime: a changed module (a new
//    build of dist/) is compiled afresh and its entry replaced, so the cache never grows past one
//    entry a module and never runs stale code (V8 itself also rejects data of another source length
//    or V8 version).
// 2. KEBOOLA_E2E_DEFER_SDK_MODULES=1: `typescript` (8.9 MB, required at load by the SDK's
//    runtime/closure/parseFunction.js through typescript-shim.js) and `@npmcli/arborist` (with
//    pacote, sigstore and the rest of npm's install machinery, required at load by
//    runtime/closure/codePaths.js) are loaded on first use instead of at start. The dynamic provider
//    never uses either; a program uses typescript when it serializes a dynamic provider and arborist
//    never (it serves pulumi.runtime.computeCodePaths, for function serialization of cloud
//    callbacks). Upstream meant typescript to be lazy (pulumi/pulumi#10185, "Avoid importing
//    typescript unless necessary"); parseFunction.js made it eager again (defer-sdk-modules.ts).
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import * as vm from "node:vm";
import { deferSdkModules } from "./defer-sdk-modules";

// The parts of node:module's CommonJS loader this file hooks: internal, but stable since Node.js 0.x
// and what every code-cache loader (v8-compile-cache, used by yarn and eslint) relies on.
interface LoaderModule {
  filename: string;
  exports: unknown;
  require(id: string): unknown;
}
interface Loader {
  prototype: { _compile(this: LoaderModule, content: string, filename: string): unknown };
  _load(request: string, parent: LoaderModule | undefined, isMain: boolean): unknown;
  _resolveFilename(request: string, parent: LoaderModule, isMain: boolean, options?: { paths?: string[] }): string;
  _resolveLookupPaths(request: string, parent: LoaderModule): string[] | null;
  _cache: NodeJS.Require["cache"];
  _extensions: NodeJS.Require["extensions"];
  wrap(content: string): string;
}
// Typed by Loader above: @types/node declares none of these parts.
const loader: Loader = require("node:module");

const cacheDir = process.env.KEBOOLA_E2E_COMPILE_CACHE;
const cacheRoot = process.env.KEBOOLA_E2E_COMPILE_ROOT;
if (cacheDir && cacheRoot) useCompileCache(cacheDir, path.resolve(cacheRoot) + path.sep);
if (process.env.KEBOOLA_E2E_DEFER_SDK_MODULES === "1") deferSdkModules();

function useCompileCache(dir: string, root: string): void {
  // Cache entries are V8 data: another Node.js (V8) writes elsewhere instead of being rejected each time.
  const versionDir = path.join(dir, `node-${process.version}-${process.arch}`);
  fs.mkdirSync(versionDir, { recursive: true });
  const original = loader.prototype._compile;
  const toWrite = new Map<string, { script: vm.Script; header: string }>();

  loader.prototype._compile = function compile(this: LoaderModule, content: string, filename: string): unknown {
    if (!filename.startsWith(root) || !filename.endsWith(".js")) return original.call(this, content, filename);
    let stat: fs.Stats;
    try {
      stat = fs.statSync(filename);
    } catch {
      return original.call(this, content, filename);
    }
    const entry = path.join(versionDir, crypto.createHash("sha1").update(filename).digest("hex"));
    // Header: size and mtime of the module the data was made from; a mismatch is a miss.
    const header = `${stat.size}:${stat.mtimeMs}\n`;
    let cachedData: Buffer | undefined;
    try {
      const data = fs.readFileSync(entry);
      if (data.subarray(0, header.length).toString() === header) cachedData = data.subarray(header.length);
    } catch {
      // no entry yet
    }
    // A hashbang line is legal only at the very start of a script, and the wrapper moves it: blank
    // it (the newline stays, so line numbers do too), as Node.js' own loader lets V8 do.
    const source = content.startsWith("#!") ? content.replace(/^#!.*/, "") : content;
    const script = new vm.Script(loader.wrap(source), {
      filename,
      cachedData,
      importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
    });
    if (!cachedData || script.cachedDataRejected) toWrite.set(entry, { script, header });
    // The wrapper loader.wrap made: function (exports, require, module, __filename, __dirname).
    const wrapper: unknown = script.runInThisContext({ displayErrors: true });
    if (typeof wrapper !== "function") throw new Error(`e2e-node-preload: ${filename} did not compile to its module wrapper`);
    return wrapper.call(this.exports, this.exports, makeRequire(this), this, filename, path.dirname(filename));
  };

  // Data made after the modules ran holds the functions compiled while they ran too. The engine
  // kills a plugin at the end without an exit event, hence also a timer (unref'd: it keeps nothing alive).
  const flush = (): void => {
    for (const [entry, { script, header }] of toWrite) {
      try {
        const tmp = `${entry}.${process.pid}.tmp`;
        fs.writeFileSync(tmp, Buffer.concat([Buffer.from(header), script.createCachedData()]));
        fs.renameSync(tmp, entry); // atomic: concurrent processes never read half an entry
      } catch {
        // a cache that cannot be written is only slower
      }
    }
    toWrite.clear();
  };
  setTimeout(flush, 1000).unref();
  process.on("exit", flush);
}

// The `require` Node.js gives a module, made from the loader's public-by-convention parts.
function makeRequire(mod: LoaderModule): NodeJS.Require {
  const resolve: NodeJS.RequireResolve = Object.assign((request: string, options?: { paths?: string[] }) => loader._resolveFilename(request, mod, false, options), {
    paths: (request: string) => loader._resolveLookupPaths(request, mod),
  });
  return Object.assign((id: string) => mod.require(id), { resolve, main: process.mainModule, cache: loader._cache, extensions: loader._extensions });
}
