import type { ExternalStatus, Provider } from '../db/entities.js';
import type { CalendarWriter } from './calendar-writer.js';

export interface TokenSet {
  accessToken: string;
  /** Absent when the provider kept the refresh token it gave before (Google on refresh). */
  refreshToken?: string;
  expiresAt: Date;
  /** The scopes the provider says it granted, when it says. */
  scopes?: string[];
}

/** One item a provider returned: a live event, or its removal (cancelled, deleted, `@removed`). */
export type ProviderChange =
  | {
      externalId: string;
      removed: false;
      title: string;
      start: Date;
      end: Date;
      allDay: boolean;
      status: Exclude<ExternalStatus, 'cancelled'>;
      busy: boolean;
    }
  | { externalId: string; removed: true };

export interface ChangeSet {
  changes: ProviderChange[];
  /** Where the next incremental sync starts (Google nextSyncToken, Graph deltaLink). */
  cursor: string;
  /** The provider returned the whole window (first pass or after 410): rows it did not name are gone. */
  full: boolean;
  /** Items we could not read (a time zone we do not know): counted as fetched, our copy left as it was. */
  unreadable?: string[];
}

export interface PushChannel {
  id: string;
  resourceId: string | null;
  expiresAt: Date;
}

import type { ApiCall } from './http.js';

export type { ApiCall };

export interface SyncWindow {
  from: Date;
  to: Date;
}

/** What the service needs of one provider; both speak OAuth 2 authorization code with PKCE. */
export interface ProviderAdapter {
  readonly provider: Provider;
  /** The least scope that lets write-back create its calendar and events (asked by oauth/start beside read). */
  readonly writeScope: string;
  /** Every scope oauth/start asks for. */
  readonly scopes: readonly string[];
  /** Calendar write-back calls (adapters/write-back-*.ts). */
  readonly writer: CalendarWriter;
  configured(): boolean;
  authUrl(params: { state: string; codeChallenge: string; redirectUri: string }): string;
  exchangeCode(code: string, verifier: string, redirectUri: string): Promise<TokenSet>;
  refresh(refreshToken: string): Promise<TokenSet>;
  accountEmail(api: ApiCall): Promise<string | null>;
  fetchChanges(api: ApiCall, cursor: string | null, window: SyncWindow): Promise<ChangeSet>;
  openChannel(
    api: ApiCall,
    params: { id: string; address: string; secret: string; expiresAt: Date },
  ): Promise<PushChannel>;
  /** Google channels cannot be extended: a renewal is a new channel (the caller stops the old one). */
  renewChannel(
    api: ApiCall,
    channel: PushChannel,
    params: { id: string; address: string; secret: string; expiresAt: Date },
  ): Promise<PushChannel>;
  stopChannel(api: ApiCall, channel: PushChannel): Promise<void>;
  /** Best effort upstream revocation of the grant (Google); no-op where the provider has none. */
  revoke(token: string): Promise<void>;
}
