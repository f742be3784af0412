import * as path from "node:path";

// `typescript` (8.9 MB, required at load by @pulumi/pulumi's runtime/closure/parseFunction.js
// through typescript-shim.js) and `@npmcli/arborist` (with pacote, sigstore and the rest of npm's
// install machinery, required at load by runtime/closure/codePaths.js), loaded on first use instead
// of when the SDK loads. Upstream meant typescript to be lazy (pulumi/pulumi#10185, "Avoid importing
// typescript unless necessary"); parseFunction.js made it eager again. The end-to-end tests' preload
// (e2e-node-preload.ts) defers them in the Node.js processes Pulumi starts. (The provider plugin
// needed this too while it loaded the SDK with the kinds' classes; it loads no SDK runtime now.)
// Only those two requires, from those SDK files, are deferred; nothing else is touched.

// The parts of node:module's CommonJS loader this hooks: internal, but stable since Node.js 0.x.
interface LoaderModule {
  filename: string;
}
interface Loader {
  _load(request: string, parent: LoaderModule | undefined, isMain: boolean): unknown;
  _resolveFilename(request: string, parent: LoaderModule, isMain: boolean): string;
}

export function deferSdkModules(): void {
  // Typed by Loader above: @types/node declares none of these parts.
  const loader: Loader = require("node:module");
  // request -> the SDK file that requires it at load, and whether that file reads it through
  // TypeScript's __importStar (which copies every key at once unless the module says __esModule).
  const deferred: Record<string, { from: string; importStar: boolean }> = {
    typescript: { from: path.join("@pulumi", "pulumi", "typescript-shim.js"), importStar: false },
    "@npmcli/arborist": { from: path.join("@pulumi", "pulumi", "runtime", "closure", "codePaths.js"), importStar: true },
  };
  const original = loader._load;
  loader._load = function load(request: string, parent: LoaderModule | undefined, isMain: boolean): unknown {
    const d = Object.hasOwn(deferred, request) ? deferred[request] : undefined;
    if (!d || !parent?.filename.endsWith(d.from)) return original.call(loader, request, parent, isMain);
    // Resolved now, loaded later: a module that is not there fails the require where the SDK
    // expects it to (typescript-shim.js catches that and falls back to the TypeScript Pulumi bundles).
    loader._resolveFilename(request, parent, isMain);
    let real: object | undefined;
    const load = (): object => {
      if (real) return real;
      const loaded = original.call(loader, request, parent, isMain);
      if ((typeof loaded !== "object" && typeof loaded !== "function") || loaded === null) throw new Error(`${request} exports no object`);
      return (real = loaded);
    };
    return new Proxy(
      {},
      {
        get: (_, key) => (key === "__esModule" && real === undefined && d.importStar ? true : Reflect.get(load(), key)),
        has: (_, key) => Reflect.has(load(), key),
        ownKeys: () => Reflect.ownKeys(load()),
        // Reported configurable: the proxy's own target is empty, and a proxy may not claim a
        // non-configurable property its target lacks.
        getOwnPropertyDescriptor: (_, key) => {
          const desc = Reflect.getOwnPropertyDescriptor(load(), key);
          return desc && { ...desc, configurable: true };
        },
        set: (_, key, value) => Reflect.set(load(), key, value),
      },
    );
  };
}
