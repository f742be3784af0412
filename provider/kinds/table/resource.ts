// The Table resource class a Pulumi program uses (the program process only): its arguments typed
// by the kind's schema (./kind.ts), registered as program/resource.ts registers every kind.
import * as pulumi from "@pulumi/pulumi";
import { KeboolaResource, type ArgsOf, type OutputsOf } from "../../program/resource";
import { declareTable, tableFacts, declaredTable } from "../../program/declarations";
import { inStackBranch } from "../branch/stack";
import { table, type TableInputs } from "./kind";

export interface TableArgs extends ArgsOf<Omit<TableInputs, "dataContent">> {}

export interface Table extends OutputsOf<typeof table> {}
export class Table extends KeboolaResource {
  constructor(name: string, args: TableArgs, opts?: pulumi.CustomResourceOptions) {
    args = inStackBranch(args); // keboola:branch: the stack's development branch unless it names one
    declareTable(name, args);
    // A data path is relative to the program's directory: the provider resolves it against it.
    super(table, name, { ...args, __root: rootDirectory() }, opts, tableFacts(args));
    declaredTable(name, args, this);
  }
}

/** The program's directory, which a Table's data path is relative to. */
function rootDirectory(): string {
  try {
    return pulumi.runtime.getRootDirectory();
  } catch {
    return process.cwd();
  }
}

export type { TableInputs } from "./kind";
