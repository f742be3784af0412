import { stackBranch } from "./resource";

// The development branch stack config `keboola:branch` puts the whole stack in (see resource.ts),
// as each resource class of a program applies it to its arguments.

/** The arguments of a resource with a branchId, placed in the stack's branch when they name none. */
export function inStackBranch<T extends { branchId?: unknown }>(args: T): T {
  if (args.branchId !== undefined) return args;
  const branch = stackBranch();
  return branch ? { ...args, branchId: branch.branchId } : args;
}
