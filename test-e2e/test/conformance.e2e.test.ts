import { describe, expect, it } from 'vitest';
import { conformanceProblems, conformingFetch } from '../src/conformance.js';

const BASE = 'http://routinely.test';
const TASK_ID = '0195f3a2-7c41-7d2e-9b1a-3f6e2d4c5b7a';
const json = (body: unknown, status: number, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', 'x-request-id': 'r1', ...headers },
  });
const problem = (status: number, code: string, headers: Record<string, string> = {}) =>
  new Response(
    JSON.stringify({ type: `urn:routinely:problem:${code}`, title: 'x', status, detail: 'x', code, request_id: 'r1' }),
    { status, headers: { 'content-type': 'application/problem+json', 'x-request-id': 'r1', ...headers } },
  );

const task = {
  id: TASK_ID,
  tenant_id: TASK_ID,
  user_id: TASK_ID,
  parent_task_id: null,
  depth: 1,
  sort_order: 0,
  title: 'Water the plants',
  description: null,
  raw_input: null,
  status: 'pending',
  priority: 3,
  duration_min: 30,
  deadline_at: null,
  earliest_start_at: null,
  reminder_channels: ['inapp'],
  reminder_offset_min: 10,
  tags: [],
  chosen_slot_start: null,
  chosen_slot_end: null,
  completed_at: null,
  created_at: '2026-03-02T09:00:00.000Z',
  updated_at: '2026-03-02T09:00:00.000Z',
  recurrence: null,
  series_id: null,
  occurrence_date: null,
};

describe('the conformance check every e2e answer goes through', () => {
  const url = `${BASE}/api/v1/service/tasks/${TASK_ID}`;

  it('passes an answer the document describes, on both mounts', async () => {
    expect(await conformanceProblems('GET', url, json(task, 200))).toEqual([]);
    expect(await conformanceProblems('GET', `${BASE}/v1/service/tasks/${TASK_ID}`, json(task, 200))).toEqual([]);
    expect(
      await conformanceProblems('GET', url, problem(401, 'not_authenticated', { 'www-authenticate': 'Bearer' })),
    ).toEqual([]);
  });

  it('names an undocumented status, a wrong body, a bad format, a wrong content type and a missing header', async () => {
    const [status] = await conformanceProblems('GET', url, problem(409, 'conflict'));
    expect(status).toContain('status not documented');
    const [body] = await conformanceProblems('GET', url, json({ ...task, priority: 'high' }, 200));
    expect(body).toContain('body breaks the schema at /priority');
    const [format] = await conformanceProblems('GET', url, json({ ...task, created_at: 'yesterday' }, 200));
    expect(format).toContain('/created_at');
    const [type] = await conformanceProblems('GET', url, json({ code: 'not_found' }, 404));
    expect(type).toContain('content type application/json not documented');
    const [header] = await conformanceProblems('GET', url, problem(401, 'not_authenticated'));
    expect(header).toContain('required header WWW-Authenticate missing');
  });

  it('makes the client call throw on a non-conforming answer', async () => {
    const checked = conformingFetch(async () => json({ ...task, status: 'lost' }, 200));
    await expect(checked(new Request(url))).rejects.toThrow(/does not conform/);
  });
});
