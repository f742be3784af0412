import * as path from "node:path";
import type * as dynamic from "@pulumi/pulumi/dynamic";
import { providerFor } from "../dynamic/shim";
import { KINDS, type ResourceKind } from "../kinds/registry";

// Pulumi serializes a resource's provider object into the state, and serializes an object that is
// the whole export of an installed package's module as `require("<that module>")` instead of its
// code. So each kind's provider object is the export of a module of its own,
// `keboola-pulumi/kinds/<file>`: those modules are derived from the kinds table at build time
// (scripts/gen-kinds.ts writes dist/kinds/<file>.js, a folder of its own so that no kind's file
// name can meet a module of the provider), never written by hand.

/** The provider object of every resource of a kind. */
export function kindProvider(kind: ResourceKind): dynamic.ResourceProvider {
  for (const id of kindModules(KINDS[kind].file)) {
    try {
      const mod: unknown = require(id);
      if (isProvider(mod)) return mod;
    } catch (err) {
      if (!isModuleNotFound(err)) throw err;
    }
  }
  // Run from the TypeScript sources (the tests), where no generated module exists: the same object,
  // serialized as its code.
  return providerFor(kind);
}

/**
 * Where a kind's generated module (dist/kinds/<file>.js) is loaded from, best first: by the
 * package's name, which an installed copy resolves to itself inside node_modules; in a checkout,
 * where that name resolves to the checkout's own files, through the checkout's
 * node_modules/keboola-pulumi (provider/checkout-link.ts), so that Pulumi records
 * `require("keboola-pulumi/kinds/<file>")` either way; else by its path beside this module.
 */
function kindModules(file: string): string[] {
  const out: string[] = [];
  try {
    const byName = require.resolve(`keboola-pulumi/kinds/${file}`);
    if (byName.split(path.sep).includes("node_modules")) out.push(byName);
  } catch {
    // not resolvable by name (the TypeScript sources of a checkout without a build)
  }
  out.push(path.resolve(__dirname, "../../../node_modules/keboola-pulumi/kinds", `${file}.js`), `../../kinds/${file}`);
  return out;
}

function isProvider(v: unknown): v is dynamic.ResourceProvider {
  return typeof v === "object" && v !== null && "create" in v && typeof v.create === "function";
}

function isModuleNotFound(err: unknown): boolean {
  return err instanceof Error && "code" in err && err.code === "MODULE_NOT_FOUND";
}
