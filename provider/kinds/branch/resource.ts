// The Branch resource class a Pulumi program uses (the program process only): its arguments typed
// by the kind's schema (./kind.ts), registered as program/resource.ts registers every kind.
import * as pulumi from "@pulumi/pulumi";
import { KeboolaResource, type ArgsOf, type OutputsOf } from "../../program/resource";
import { declareBranch, declaredBranch } from "../../program/declarations";
import { STACK_BRANCH_RESOURCE } from "../../lifecycle/facts";
import { type BranchInputs, branch } from "./kind";

export interface BranchArgs extends ArgsOf<BranchInputs> {}

export interface Branch extends OutputsOf<typeof branch> {}

export class Branch extends KeboolaResource {
  constructor(name: string, args: BranchArgs, opts?: pulumi.CustomResourceOptions) {
    const declared = declareBranch(name, args);
    super(branch, name, args, opts);
    declaredBranch(declared, this);
  }
}

// A whole stack in a development branch: stack config `keboola:branch` names the branch. The
// stack then declares that Branch itself (one resource, `keboola-branch`, created or taken back
// when it is ours) and every resource of the program that names no branchId lives in it, so that
// `pulumi destroy` deletes the branch after what the stack made in it, and nothing of the stack is
// written to the default branch. A resource that names its branchId keeps it.

let declared: { name: string; branch: Branch } | undefined;

/** The development branch name stack config `keboola:branch` gives, if any. */
export function stackBranchName(): string | undefined {
  const name = new pulumi.Config("keboola").get("branch")?.trim();
  return name ? name : undefined;
}

/**
 * The stack's development branch (declared on first use), or undefined when `keboola:branch` is
 * not set. A program uses it to leave out what a development branch cannot hold (Stream objects,
 * schedules: see the README) and to reference the branch's id.
 */
export function stackBranch(): Branch | undefined {
  const name = stackBranchName();
  if (name === undefined) return undefined;
  if (declared?.name !== name) {
    const stack = pulumi.getStack();
    declared = {
      name,
      branch: new Branch(STACK_BRANCH_RESOURCE, { name, description: `Development branch of Pulumi stack "${stack}" (stack config keboola:branch)` }),
    };
  }
  return declared.branch;
}

export type { BranchInputs } from "./kind";
