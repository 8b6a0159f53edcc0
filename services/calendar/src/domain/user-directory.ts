/** A user of the tenant as the auth service describes them. */
export interface DirectoryUser {
  id: string;
  tenantId: string;
  email: string;
  name: string | null;
  isActive: boolean;
}

/**
 * The port through which sharing finds users. The auth service owns users; this service never reads its
 * schema. Both methods answer null for an unknown user and for a user of another tenant.
 */
export interface UserDirectory {
  /** `actingUserId` is the user on whose behalf the lookup runs (carried to the auth service). */
  findById(tenantId: string, userId: string, actingUserId?: string): Promise<DirectoryUser | null>;
  findByEmail(tenantId: string, email: string, actingUserId?: string): Promise<DirectoryUser | null>;
  close?(): void;
}
