import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import type { DeployContext } from "../../program/manifest-context";
import type { TableEntry } from "./manifest";
import { Table } from "./resource";

/** The `tables` of a manifest: a Table each, in its bucket's branch, its data path relative to the program. */
export function declareTables(entries: Record<string, TableEntry>, ctx: DeployContext<{ buckets?: Record<string, { branchId?: string }> }, { buckets: Record<string, { bucketId: pulumi.Output<string> }> }>) {
  const tables: Record<string, Table> = {};
  for (const [key, { bucket, data, ...inputs }] of Object.entries(entries)) {
    const table = {
      ...inputs,
      branchId: ctx.manifest.buckets?.[bucket]?.branchId,
      bucketId: ctx.declared.buckets[bucket].bucketId,
      ...(data !== undefined ? { data: dataRelativeToProgram(data, ctx.baseDir) } : {}),
    };
    tables[key] = new Table(key, table, ctx.optsOf(key));
  }
  return { tables };
}

/**
 * A table's data path is relative to the manifest; the provider resolves it against the program's
 * directory, so it is rewritten relative to that (state keeps no machine's absolute path).
 */
function dataRelativeToProgram<T>(data: T, baseDir: string | undefined): T | string {
  if (typeof data !== "string" || !baseDir || path.isAbsolute(data)) return data;
  let root: string;
  try {
    root = pulumi.runtime.getRootDirectory();
  } catch {
    root = process.cwd();
  }
  return path.relative(root, path.resolve(baseDir, data)).split(path.sep).join("/");
}
