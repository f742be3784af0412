import type { TokenRecord } from "../core/tokens";
import { errors } from "./errors";
import type { CreatorToken } from "./state";

// What a token may do, as the real Storage API decides it:
// - a master token may do everything;
// - other tokens reach component configurations only for the components in their
//   `componentAccess` (real: a token without it gets 403 `accessDenied` "You don't have access
//   to the resource." even when listing components);
// - buckets: `canManageBuckets` gives "manage" on every bucket; the emulator's other tokens
//   may read every bucket and write none (verify lists them with "read").

export function canAccessComponent(token: TokenRecord, componentId: string): boolean {
  // Stryker disable next-line ArrayDeclaration: equivalent: a filled-in default list holds a text no component id is (ids are letters, digits, "." and "-"), so no request reaches another answer
  return token.isMasterToken || (token.componentAccess ?? []).includes(componentId);
}

export function requireComponentAccess(token: TokenRecord, componentId: string): void {
  if (!canAccessComponent(token, componentId)) throw errors.accessDenied();
}

export function canWriteBuckets(token: TokenRecord): boolean {
  return token.isMasterToken || token.canManageBuckets;
}

export function requireBucketWrite(token: TokenRecord): void {
  if (!canWriteBuckets(token)) throw errors.accessDenied();
}

export function bucketPermission(token: TokenRecord): "manage" | "read" {
  return canWriteBuckets(token) ? "manage" : "read";
}

export function creatorToken(token: TokenRecord): CreatorToken {
  return { id: Number(token.id), description: token.description };
}
