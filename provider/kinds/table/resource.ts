// The Table resource class a Pulumi program uses (the program process only): its arguments typed
// by the kind's schema (./kind.ts), registered as program/resource.ts registers every kind.
import type * as pulumi from "@pulumi/pulumi";
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
    // A data path is relative to the program's directory, which its provider reference names.
    super(table, name, args, opts, tableFacts(args));
    declaredTable(name, args, this);
  }
}

export type { TableInputs } from "./kind";
