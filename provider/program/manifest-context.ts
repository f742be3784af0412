import type * as pulumi from "@pulumi/pulumi";

// What a section's declaration (provider/kinds/<kind>/declare.ts) is given to turn its entries into
// resources: the whole manifest and what the sections declared before it declared (each
// declaration says, by its parameter's type, which of them it reads), the options every resource
// gets, and what a stack in a development branch leaves out (deploy.ts).

export interface DeployContext<M = unknown, D = unknown> {
  manifest: M;
  declared: D;
  /** Options for every resource (DeployOptions.resourceOptions). */
  opts: pulumi.CustomResourceOptions | undefined;
  /** The directory a table's `data` path is relative to (deployManifest: the manifest's). */
  baseDir: string | undefined;
  /** The entries a stack in a development branch leaves out, by section. */
  leftOut: Readonly<Record<string, readonly string[]>>;
}
