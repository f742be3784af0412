#!/usr/bin/env node
import * as fs from "node:fs";
import * as path from "node:path";
import { KINDS, KIND_NAMES, slugOf } from "../provider/kinds/registry";

// Writes one module per row of the kinds table, dist/kinds/<slug>.js, whose whole export is that
// kind's provider object as earlier versions registered it (provider/dynamic/shim.ts): their
// resources' state requires `keboola-pulumi/kinds/<slug>`, and reading or deleting them loads it.
// Today's resources name themselves in their reference (provider/dynamic/reference.ts). Run by
// `npm run build` after tsc; package.json exports them all as `keboola-pulumi/kinds/*`.

export function kindModules(): Record<string, string> {
  return Object.fromEntries(
    KIND_NAMES.map((kind) => [
      `${slugOf(kind)}.js`,
      `"use strict";\n// Generated from provider/kinds/registry.ts by scripts/gen-kinds.ts: the provider object of every ${KINDS[kind].type} an earlier version registered.\nmodule.exports = require("../provider/dynamic/shim").providerFor(${JSON.stringify(kind)});\n`,
    ]),
  );
}

if (require.main === module) {
  const dir = path.resolve(__dirname, "..", "kinds");
  fs.mkdirSync(dir, { recursive: true });
  for (const [file, text] of Object.entries(kindModules())) fs.writeFileSync(path.join(dir, file), text);
}
