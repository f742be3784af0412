import type * as dynamic from "@pulumi/pulumi/dynamic";
import { providerFor } from "../shim";
import { KINDS, type ResourceKind } from "./table";

// Pulumi serializes a resource's provider object into the state, and serializes an object that is
// the whole export of an installed package's module as `require("<that module>")` instead of its
// code. So each kind's provider object is the export of a module of its own,
// `keboola-pulumi/kinds/<file>`: those modules are derived from the kinds table at build time
// (scripts/gen-kinds.ts writes dist/kinds/<file>.js, a folder of its own so that no kind's file
// name can meet a module of the provider), never written by hand.

/** The provider object of every resource of a kind. */
export function kindProvider(kind: ResourceKind): dynamic.ResourceProvider {
  try {
    // The generated module (dist/kinds/<file>.js, from dist/provider/kinds/ where this one is built).
    const mod: unknown = require(`../../kinds/${KINDS[kind].file}`);
    if (isProvider(mod)) return mod;
  } catch (err) {
    if (!isModuleNotFound(err)) throw err;
  }
  // Run from the TypeScript sources (the tests), where no generated module exists: the same object,
  // serialized as its code.
  return providerFor(kind);
}

function isProvider(v: unknown): v is dynamic.ResourceProvider {
  return typeof v === "object" && v !== null && "create" in v && typeof v.create === "function";
}

function isModuleNotFound(err: unknown): boolean {
  return err instanceof Error && "code" in err && err.code === "MODULE_NOT_FOUND";
}
