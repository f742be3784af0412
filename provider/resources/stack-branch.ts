import * as pulumi from "@pulumi/pulumi";
import { Branch } from "./branch";
import { STACK_BRANCH_RESOURCE } from "./program";

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

/** The arguments of a resource with a branchId, placed in the stack's branch when they name none. */
export function inStackBranch<T extends { branchId?: unknown }>(args: T): T {
  if (args.branchId !== undefined) return args;
  const branch = stackBranch();
  return branch ? { ...args, branchId: branch.branchId } : args;
}
