import type { Sql } from '@routinely/db';
import { enqueue, makeEvent, schedulerEvents } from '@routinely/events';
import { AppError, notFound, type Owner } from '@routinely/platform';
import { v7 as uuidv7 } from 'uuid';
import {
  deleteWindow,
  findKnownUser,
  findSettings,
  insertSettingsIfMissing,
  insertWindow,
  isSettingsChangeAcknowledged,
  listWindows,
  type SettingsRow,
  updateSettings,
} from '../db/settings-sql.js';
import { iso } from './answer-values.js';
import type { SchedulerContext } from './context.js';
import type { ProviderName } from './providers.js';
import {
  canonicalTimeZone,
  defaultWorkingHours,
  type NoGoWindow,
  type NoGoWindowInput,
  type SettingsOut,
  type SettingsPatch,
  toStoredWindow,
  type WorkingHours,
} from './settings-model.js';
import { tenantPolicy } from './tenant-settings.js';

const DEFAULT_REMINDER_OFFSET_MIN = 10;

/** A user's settings: created lazily, scoped to the caller (owner), validated by the schemas of settings-model. */
export class SettingsService {
  constructor(private readonly ctx: SchedulerContext) {}

  /** The row, created on first read from the contract's defaults and the profile timezone auth told us. */
  async ensure(sql: Sql, owner: Owner): Promise<SettingsRow> {
    const existing = await findSettings(sql, owner.tenantId, owner.userId);
    if (existing) return existing;
    const profile = await findKnownUser(sql, owner.userId);
    const profileZone = profile?.tenant_id === owner.tenantId && profile.timezone ? profile.timezone : undefined;
    const now = this.ctx.clock.now();
    await insertSettingsIfMissing(sql, {
      user_id: owner.userId,
      tenant_id: owner.tenantId,
      timezone: (profileZone && canonicalTimeZone(profileZone)) || 'UTC',
      llm_provider_default: 'builtin',
      working_hours: defaultWorkingHours(),
      reminder_offset_min: DEFAULT_REMINDER_OFFSET_MIN,
      buffer_min: 0,
      created_at: now,
      updated_at: now,
    });
    const created = await findSettings(sql, owner.tenantId, owner.userId);
    // The id is the user's; a row under another tenant would mean a forged or reused user id.
    if (!created) throw notFound('Settings');
    return created;
  }

  /** The tenant's provider policy as it applies to this user. */
  policyOf(owner: Owner) {
    return tenantPolicy(this.ctx.db, owner.tenantId);
  }

  /** The user's settings timezone (what "today" means for their spend). */
  async timezoneOf(owner: Owner): Promise<string> {
    return (await this.ensure(this.ctx.db, owner)).timezone;
  }

  async get(owner: Owner): Promise<SettingsOut> {
    const sql = this.ctx.db;
    return this.present(sql, owner, await this.ensure(sql, owner));
  }

  async patch(owner: Owner, patch: SettingsPatch): Promise<SettingsOut> {
    const sql = this.ctx.db;
    await this.ensure(sql, owner);
    const policy = await tenantPolicy(sql, owner.tenantId);
    const ignored: string[] = [];
    let provider: ProviderName | undefined = patch.llm_provider_default;
    if (provider !== undefined && policy.llm_provider_locked) {
      ignored.push('llm_provider_default');
      provider = undefined;
    }
    const now = this.ctx.clock.now();
    let changeId: string | undefined;
    // A new timezone is published with the change (outbox): the task service reads routines' dates in it.
    const row = await this.ctx.db.transaction(async (tx) => {
      const updated = await updateSettings(
        tx,
        owner.tenantId,
        owner.userId,
        {
          ...(patch.timezone ? { timezone: patch.timezone } : {}),
          ...(provider ? { llmProviderDefault: provider } : {}),
          ...(patch.working_hours ? { workingHours: patch.working_hours } : {}),
          ...(patch.reminder_offset_min !== undefined ? { reminderOffsetMin: patch.reminder_offset_min } : {}),
          ...(patch.buffer_min !== undefined ? { bufferMin: patch.buffer_min } : {}),
        },
        now,
      );
      if (updated && patch.timezone) {
        const data = { timezone: updated.timezone, updated_at: now.toISOString() };
        const changed = makeEvent(schedulerEvents.settingsTimezoneChanged, { ...owner, at: now }, data);
        await enqueue(tx, changed);
        changeId = changed.id;
      }
      return updated;
    });
    if (!row) throw notFound('Settings');
    if (changeId) {
      this.ctx.relay.kick();
      await this.untilApplied(changeId);
    }
    const out = await this.present(sql, owner, row);
    return ignored.length ? { ...out, ignored } : out;
  }

  /**
   * Read-your-writes for the timezone (ADR 029, as ADR 061 for the calendar): waits, at most
   * SCHEDULER_SETTINGS_WAIT_MS of wall time, until the task service acknowledged our event, so a routine created
   * right after this answer has its windows in the new zone. Past the bound the answer goes anyway (the change
   * is committed and reaches the task service when it catches up).
   */
  private async untilApplied(eventId: string): Promise<void> {
    const deadline = performance.now() + this.ctx.config.SCHEDULER_SETTINGS_WAIT_MS;
    const sql = this.ctx.db;
    while (!(await isSettingsChangeAcknowledged(sql, eventId))) {
      if (performance.now() >= deadline) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async workingHours(owner: Owner): Promise<WorkingHours> {
    return (await this.ensure(this.ctx.db, owner)).working_hours as WorkingHours;
  }

  async replaceWorkingHours(owner: Owner, hours: WorkingHours): Promise<WorkingHours> {
    const sql = this.ctx.db;
    await this.ensure(sql, owner);
    const row = await updateSettings(sql, owner.tenantId, owner.userId, { workingHours: hours }, this.ctx.clock.now());
    if (!row) throw notFound('Settings');
    return row.working_hours as WorkingHours;
  }

  async windows(owner: Owner): Promise<NoGoWindow[]> {
    const rows = await listWindows(this.ctx.db, owner.tenantId, owner.userId);
    return rows.map((r) => r.body as NoGoWindow);
  }

  async addWindow(owner: Owner, input: NoGoWindowInput): Promise<NoGoWindow> {
    const window = toStoredWindow(input, input.id ?? uuidv7());
    const added = await insertWindow(this.ctx.db, {
      id: window.id,
      tenantId: owner.tenantId,
      userId: owner.userId,
      body: window,
      at: this.ctx.clock.now(),
    });
    if (!added) {
      throw new AppError('conflict', 'A no-go window with this id already exists', {
        errors: [{ loc: ['body', 'id'], msg: 'id already used', type: 'conflict' }],
      });
    }
    return window;
  }

  async removeWindow(owner: Owner, id: string): Promise<void> {
    if (!(await deleteWindow(this.ctx.db, owner.tenantId, owner.userId, id))) throw notFound('No-go window');
  }

  /** The HTTP shape: the row with its windows and the provider a run would use while the tenant's policy holds. */
  private async present(sql: Sql, owner: Owner, row: SettingsRow): Promise<SettingsOut> {
    const [windows, policy] = await Promise.all([
      listWindows(sql, owner.tenantId, owner.userId),
      tenantPolicy(sql, owner.tenantId),
    ]);
    const userDefault = row.llm_provider_default as ProviderName;
    return {
      user_id: row.user_id,
      timezone: row.timezone,
      llm_provider_default: userDefault,
      llm_provider_effective: policy.llm_provider_locked ? policy.llm_provider_tenant_default : userDefault,
      working_hours: row.working_hours as WorkingHours,
      no_go_windows: windows.map((w) => w.body as NoGoWindow),
      reminder_offset_min: row.reminder_offset_min,
      buffer_min: row.buffer_min,
      created_at: iso(row.created_at),
      updated_at: iso(row.updated_at),
    };
  }
}
