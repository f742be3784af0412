// Storage API tokens known to the emulator. The master token can do everything; the optional
// limited token mirrors a real non-admin token without configuration management, so the
// provider's permission errors can be tested.
export interface TokenRecord {
  id: string;
  token: string;
  description: string;
  isMasterToken: boolean;
  canManageBuckets: boolean;
  canManageTokens: boolean;
  canReadAllFileUploads: boolean;
  /**
   * Components whose configurations a non-master token may read and manage (the real
   * `componentAccess`); a master token has access to all, whatever this says.
   */
  componentAccess?: string[];
  created: string;
  /**
   * The user behind a master token, as the Stream API sees it (emulator/stream/auth.ts; the role
   * defaults to "admin"). Tests put their own here (a user without the admin role).
   */
  admin?: TokenAdmin;
}

/** The user behind a master token. */
export interface TokenAdmin {
  id?: number | string;
  name?: string;
  role?: string;
}

export function masterToken(token: string, created: string): TokenRecord {
  return {
    id: "1001",
    token,
    description: "Master token",
    isMasterToken: true,
    canManageBuckets: true,
    canManageTokens: true,
    canReadAllFileUploads: true,
    created,
  };
}

export function limitedToken(token: string, created: string): TokenRecord {
  return {
    id: "1002",
    token,
    description: "Limited token",
    isMasterToken: false,
    canManageBuckets: false,
    canManageTokens: false,
    canReadAllFileUploads: false,
    created,
  };
}
