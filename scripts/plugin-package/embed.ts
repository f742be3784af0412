// The files the plugin reads from disk at run time, put into the bundle instead (esbuild plugin).
//
// Two modules read files beside themselves: provider/plugin/server.ts reads package.json (the
// plugin's version) and schema.json from the package root, and jsonnet/engine.ts reads the jsonnet
// engine (jsonnet/wasm: wasm_exec.js, jsonnet.wasm.gz). Inside the single executable there is no
// package root: `__dirname` is the executable's directory. So the `node:fs` those two modules
// import is, in the bundle, node:fs with `existsSync` and `readFileSync` answering for those files
// (by file name) from the bundle. Their sources stay as they are; every other module has the real
// node:fs. The build fails when one of them no longer imports node:fs (the files would then be read
// from disk again and be missing at run time): see `checkEmbedded`.
import * as fs from "node:fs";
import * as path from "node:path";
import type { Plugin } from "esbuild";

export interface EmbeddedFile {
  /** The file's path in this repository. */
  source: string;
  /** Kept as bytes (base64 in the bundle); otherwise as UTF-8 text. */
  binary?: boolean;
}

/** Per module (its path in this repository): the files its node:fs serves from the bundle, by file name. */
export const EMBEDDED: Record<string, Record<string, EmbeddedFile>> = {
  "provider/plugin/server.ts": {
    "package.json": { source: "package.json" },
    "schema.json": { source: "schema.json" },
  },
  "jsonnet/engine.ts": {
    "wasm_exec.js": { source: "jsonnet/wasm/wasm_exec.js" },
    "jsonnet.wasm.gz": { source: "jsonnet/wasm/jsonnet.wasm.gz", binary: true },
  },
};

const NAMESPACE = "keboola-embedded-fs";

/** The module that stands for node:fs in one importer: node:fs, except for the embedded files. */
function fsModule(root: string, files: Record<string, EmbeddedFile>): string {
  const entries = Object.entries(files).map(([name, f]) => {
    const bytes = fs.readFileSync(path.join(root, f.source));
    const value = f.binary ? `{ base64: ${JSON.stringify(bytes.toString("base64"))} }` : `{ text: ${JSON.stringify(bytes.toString("utf8"))} }`;
    return `  ${JSON.stringify(name)}: ${value},`;
  });
  return `"use strict";
const fs = require("node:fs");
const path = require("node:path");
const FILES = {
${entries.join("\n")}
};
const embedded = (p) => {
  const name = path.basename(String(p));
  return Object.prototype.hasOwnProperty.call(FILES, name) ? FILES[name] : undefined;
};
module.exports = Object.assign({}, fs, {
  existsSync(p) {
    return embedded(p) !== undefined || fs.existsSync(p);
  },
  readFileSync(p, options) {
    const file = embedded(p);
    if (file === undefined) return fs.readFileSync(p, options);
    const bytes = file.text !== undefined ? Buffer.from(file.text, "utf8") : Buffer.from(file.base64, "base64");
    const encoding = typeof options === "string" ? options : options && options.encoding;
    return encoding ? bytes.toString(encoding) : bytes;
  },
});
`;
}

/** The esbuild plugin; `seen` collects the importers whose node:fs it replaced. */
export function embedFiles(root: string, seen: Set<string>): Plugin {
  const byImporter = new Map(Object.entries(EMBEDDED).map(([rel, files]) => [path.resolve(root, rel), { rel, files }]));
  return {
    name: "keboola-embedded-files",
    setup(build) {
      build.onResolve({ filter: /^(node:)?fs$/ }, (args) => {
        const hit = byImporter.get(args.importer);
        if (!hit) return undefined;
        seen.add(hit.rel);
        return { path: hit.rel, namespace: NAMESPACE };
      });
      build.onLoad({ filter: /.*/, namespace: NAMESPACE }, (args) => {
        const hit = EMBEDDED[args.path];
        return { contents: fsModule(root, hit), loader: "js", resolveDir: root };
      });
    },
  };
}

/** Fails when a module listed in EMBEDDED was bundled without its node:fs being replaced. */
export function checkEmbedded(seen: Set<string>, bundled: readonly string[]): void {
  const inputs = new Set(bundled.map((f) => f.split(path.sep).join("/")));
  for (const rel of Object.keys(EMBEDDED)) {
    if (!inputs.has(rel)) throw new Error(`${rel} is not in the bundle any more: update scripts/plugin-package/embed.ts`);
    if (!seen.has(rel)) throw new Error(`${rel} no longer imports node:fs (or "fs"), so the files it reads would not come from the bundle: update scripts/plugin-package/embed.ts`);
  }
}
