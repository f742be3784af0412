#!/usr/bin/env node
import * as fs from "node:fs";
import * as path from "node:path";
import { KINDS, KIND_NAMES } from "../provider/kinds/registry";

// Writes one module per row of the kinds table, dist/kinds/<file>.js, whose whole export
// is that kind's provider object (see provider/lifecycle/kind-provider.ts for why a module each). Run by
// `npm run build` after tsc; package.json exports them all as `keboola-pulumi/kinds/*`.

export function kindModules(): Record<string, string> {
  return Object.fromEntries(
    KIND_NAMES.map((kind) => [
      `${KINDS[kind].file}.js`,
      `"use strict";\n// Generated from provider/lifecycle/kinds.ts by scripts/gen-kinds.ts: the provider object of every ${KINDS[kind].type}.\nmodule.exports = require("../provider/dynamic/shim").providerFor(${JSON.stringify(kind)});\n`,
    ]),
  );
}

if (require.main === module) {
  const dir = path.resolve(__dirname, "..", "kinds");
  fs.mkdirSync(dir, { recursive: true });
  for (const [file, text] of Object.entries(kindModules())) fs.writeFileSync(path.join(dir, file), text);
}
