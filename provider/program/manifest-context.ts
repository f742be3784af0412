import type * as pulumi from "@pulumi/pulumi";

// What a section's declaration (provider/kinds/<kind>/declare.ts) is given to turn its entries into
// resources: the whole manifest and what the sections declared before it declared (each
// declaration says, by its parameter's type, which of them it reads), the options every resource
// gets, and what a stack in a development branch leaves out (deploy.ts).

export interface DeployContext<M = unknown, D = unknown> {
  manifest: M;
  declared: D;
  /**
   * The options of the resources an entry declares: DeployOptions.resourceOptions with the entry's
   * own `options:` (manifest/entry-options.ts); `part` "settings" for a source's or sink's settings.
   */
  optsOf(key: string, part?: "settings"): pulumi.CustomResourceOptions | undefined;
  /** The directory a table's `data` path is relative to (deployManifest: the manifest's). */
  baseDir: string | undefined;
  /** The entries a stack in a development branch leaves out, by section. */
  leftOut: Readonly<Record<string, readonly string[]>>;
}

/** What deploy.ts gives every section's declaration: the context less what each section gets of its own. */
export interface DeployBase extends Omit<DeployContext, "manifest" | "declared" | "optsOf"> {
  /** The options of the resources the entry `key` of `section` declares. */
  optsOf(section: string, key: string, part?: "settings"): pulumi.CustomResourceOptions | undefined;
}
