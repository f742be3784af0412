import * as fs from "node:fs";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { deployManifest } from "./deploy";
import { ManifestError } from "./parse";
import { isRecord } from "../../keboola/json";

// The Pulumi program of the repository's root Pulumi.yaml (and of a user's own Pulumi.yaml
// pointing at it, see README): deploys the manifest named by stack config `keboola:manifest`
// (default keboola.yaml), relative to the project directory. A bad manifest fails the
// preview with every problem and registers nothing.

const PACKAGE = "keboola-pulumi";

/**
 * The provider process loads `keboola-pulumi/runtime` from the project's node_modules. In this
 * package's own checkout that is the package itself: link it, as an install would.
 */
function linkOwnCheckout(projectDir: string): void {
  const link = path.join(projectDir, "node_modules", PACKAGE);
  if (fs.existsSync(link)) return;
  try {
    const pkg: unknown = JSON.parse(fs.readFileSync(path.join(projectDir, "package.json"), "utf8"));
    if (!isRecord(pkg) || pkg.name !== PACKAGE) return;
  } catch {
    return;
  }
  try {
    fs.symlinkSync("..", link, "dir");
  } catch (err) {
    if (!isRecord(err) || err.code !== "EEXIST") throw err; // another stack of this checkout linked it first
  }
}

// The directory of Pulumi.yaml (the program itself runs with its own directory as cwd).
const projectDir = pulumi.runtime.getRootDirectory();
linkOwnCheckout(projectDir);
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
