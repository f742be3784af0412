import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { deployManifest } from "./deploy";
import { ManifestError } from "./parse";
import { linkCheckoutPackage } from "../program/checkout-link";

// The Pulumi program of the repository's root Pulumi.yaml (and of a user's own Pulumi.yaml
// pointing at it, see README): deploys the manifest named by stack config `keboola:manifest`
// (default keboola.yaml), relative to the project directory. A bad manifest fails the
// preview with every problem and registers nothing.

// The directory of Pulumi.yaml (the program itself runs with its own directory as cwd).
const projectDir = pulumi.runtime.getRootDirectory();
// Run from this package's own checkout (its root project): the checkout's node_modules/keboola-pulumi.
linkCheckoutPackage(projectDir);
const file = path.resolve(projectDir, new pulumi.Config("keboola").get("manifest") ?? "keboola.yaml");

function deploy() {
  try {
    return deployManifest(file);
  } catch (err) {
    // RunError: the CLI shows the message alone, without a stack trace.
    if (err instanceof ManifestError) throw new pulumi.RunError(err.message);
    throw err;
  }
}

const deployed = deploy();

/** Source ids and ingestion URLs (secret), by manifest key. */
export const sources = Object.fromEntries(Object.entries(deployed.sources).map(([k, s]) => [k, { sourceId: s.sourceId, url: s.url }]));
/** Destination tables of the sinks, by manifest key. */
export const tables = Object.fromEntries(Object.entries(deployed.sinks).map(([k, s]) => [k, s.tableId]));
/** Declared Storage tables (the `tables:` section), their ids by manifest key. */
export const storageTables = Object.fromEntries(Object.entries(deployed.tables).map(([k, t]) => [k, t.tableId]));
/** Configuration ids, by manifest key. */
export const configurations = Object.fromEntries(Object.entries(deployed.configurations).map(([k, c]) => [k, c.configId]));
/** Variables configuration ids, by manifest key. */
export const variables = Object.fromEntries(Object.entries(deployed.variables).map(([k, c]) => [k, c.configId]));
/** Flow configuration ids, by manifest key. */
export const flows = Object.fromEntries(Object.entries(deployed.flows).map(([k, f]) => [k, f.configId]));
/** Schedules by manifest key: their configuration, activation and next run times. */
export const schedules = Object.fromEntries(Object.entries(deployed.schedules).map(([k, s]) => [k, { configId: s.configId, scheduleId: s.scheduleId, nextRuns: s.nextRuns }]));
