import { randomUUID } from 'node:crypto';
import type { Adapter, AdapterPayload } from 'oidc-provider';

/** One account of the fake provider (a Keycloak user). `sub` is its id, as in Keycloak. */
export interface FakeIdpAccount {
  sub: string;
  email: string;
  emailVerified: boolean;
  password: string;
  givenName?: string | undefined;
  familyName?: string | undefined;
  enabled: boolean;
  /** Client roles granted, by client id. */
  clientRoles: Record<string, string[]>;
  requiredActions: string[];
}

export interface FakeIdpClient {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
  postLogoutRedirectUris?: string[];
  /** Where the provider POSTs logout tokens when a session it shares with this client ends. */
  backchannelLogoutUri?: string;
  /** The client's roles (Keycloak client roles); a role may have no description, as in Keycloak. */
  roles?: FakeIdpRole[];
}

/** A Keycloak client role: `attributes` are listed only when the caller asks for full representations. */
export interface FakeIdpRole {
  name: string;
  description?: string;
  attributes?: Record<string, string[]>;
}

/** In-memory accounts, clients and the provider's model storage, shared by the OIDC side and the admin API. */
export class FakeIdpStore {
  readonly accounts = new Map<string, FakeIdpAccount>();
  readonly clients = new Map<string, FakeIdpClient & { uuid: string }>();
  /** execute-actions-email calls, in order. */
  readonly sentActions: { sub: string; actions: string[] }[] = [];
  readonly models = new Map<string, Map<string, { payload: AdapterPayload; expiresAt: number | undefined }>>();

  addAccount(input: Partial<FakeIdpAccount> & { email: string; password: string }): FakeIdpAccount {
    const account: FakeIdpAccount = {
      sub: input.sub ?? randomUUID(),
      email: input.email.toLowerCase(),
      emailVerified: input.emailVerified ?? true,
      password: input.password,
      givenName: input.givenName,
      familyName: input.familyName,
      enabled: input.enabled ?? true,
      clientRoles: input.clientRoles ?? {},
      requiredActions: input.requiredActions ?? [],
    };
    this.accounts.set(account.sub, account);
    return account;
  }

  byEmail(email: string): FakeIdpAccount | undefined {
    const wanted = email.toLowerCase();
    for (const account of this.accounts.values()) if (account.email === wanted) return account;
    return undefined;
  }

  model(name: string) {
    let map = this.models.get(name);
    if (!map) {
      map = new Map();
      this.models.set(name, map);
    }
    return map;
  }
}

/** oidc-provider's storage interface over the store's maps (what a real deployment keeps in a database). */
export function storeAdapter(store: FakeIdpStore) {
  return class MapAdapter implements Adapter {
    readonly map;
    constructor(readonly name: string) {
      this.map = store.model(name);
    }
    live(id: string) {
      const entry = this.map.get(id);
      if (!entry) return undefined;
      if (entry.expiresAt !== undefined && entry.expiresAt <= Date.now()) {
        this.map.delete(id);
        return undefined;
      }
      return entry.payload;
    }
    async upsert(id: string, payload: AdapterPayload, expiresIn: number) {
      this.map.set(id, { payload, expiresAt: expiresIn ? Date.now() + expiresIn * 1000 : undefined });
    }
    async find(id: string) {
      return this.live(id);
    }
    async findByUserCode(userCode: string) {
      for (const [id, { payload }] of this.map) if (payload.userCode === userCode) return this.live(id);
      return undefined;
    }
    async findByUid(uid: string) {
      for (const [id, { payload }] of this.map) if (payload.uid === uid) return this.live(id);
      return undefined;
    }
    async consume(id: string) {
      const entry = this.map.get(id);
      if (entry) entry.payload.consumed = Math.floor(Date.now() / 1000);
    }
    async destroy(id: string) {
      this.map.delete(id);
    }
    async revokeByGrantId(grantId: string) {
      for (const [id, { payload }] of this.map) if (payload.grantId === grantId) this.map.delete(id);
    }
  };
}
