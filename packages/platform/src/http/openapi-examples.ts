type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null;

/** Values by format: the same ones throughout the document, so examples read as one story. */
const FORMATS: Record<string, string> = {
  uuid: '0195f3a2-7c41-7d2e-9b1a-3f6e2d4c5b7a',
  'date-time': '2026-03-02T09:00:00Z',
  date: '2026-03-02',
  time: '09:00:00',
  email: 'ada@example.com',
  uri: 'https://hooks.example.com/routinely',
  url: 'https://hooks.example.com/routinely',
  hostname: 'example.com',
};

/** Strings tried, in order, against a pattern the format does not explain (the first that matches wins). */
const PATTERN_CANDIDATES = [
  'en',
  'example.com',
  '09:00',
  '#0f766e',
  'Europe/Berlin',
  '2026-03-02',
  '2026-03',
  'whsec_',
  'abc123',
  'a',
  '1',
];

/** Property names whose plain-string values read better than "string". */
const BY_NAME: Record<string, string> = {
  title: 'Water the plants',
  name: 'Ada Lovelace',
  description: 'Every other morning, before work',
  timezone: 'Europe/Berlin',
  email: 'ada@example.com',
  password: 'correct horse battery',
  url: 'https://hooks.example.com/routinely',
  return_url: '/settings/integrations',
  tenant_id: '0195f3a2-0000-7000-8000-000000000001',
  user_id: '0195f3a2-0000-7000-8000-000000000002',
  access_token: 'eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiIuLi4ifQ.c2lnbmF0dXJl',
  refresh_token: 'rt_0195f3a2c8a94c0e8d5b',
  secret: 'whsec_5r9hQ2m1cZ0yXo3kVt7bNqLwPa4sJe6fGu8dRi2TyHk',
  secret_preview: 'whsec_5r9h...yHk',
  color: '#0f766e',
  first_name: 'Ada',
  last_name: 'Lovelace',
  display_name: 'Ada',
  phone: '+44 20 7946 0958',
  avatar_url: 'https://example.com/avatars/ada.png',
  locale: 'en-GB',
  sub: '0195f3a2-0000-7000-8000-000000000002',
  start: '2026-03-02T09:00:00Z',
  end: '2026-03-02T09:30:00Z',
  chosen_slot_start: '2026-03-02T09:00:00Z',
  chosen_slot_end: '2026-03-02T09:30:00Z',
  start_at: '2026-03-02T12:00:00Z',
  end_at: '2026-03-02T13:00:00Z',
  model: 'gpt-4o-mini',
  provider: 'builtin',
  raw_input: 'water the plants every other morning, 20 min',
  rationale: 'Earliest free slot inside working hours that ends before the deadline',
  location: 'Room 4.2',
  label: 'Lunch',
  detail: 'Task not found',
  error: 'invalid_request',
  error_description: 'logout_token missing',
  event: 'reminder.fired',
  last_error: 'reauth_required',
  external_id: '7l3kq9c2b1m0o8n6p4r2s0t8u6',
  msg: 'Required',
  active_auth_method: 'local',
  code: '123456',
  token: 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIuLi4ifQ.c2lnbmF0dXJl',
  sso_token: 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIuLi4ifQ.c2lnbmF0dXJl',
  logout_token: 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIuLi4ifQ.c2lnbmF0dXJl',
  mfa_token: 'mfa_0195f3a2c8a94c0e8d5b',
  invite_token: 'inv_0195f3a2c8a94c0e8d5b',
  kind: 'reminder',
  body: 'Water the plants starts at 09:00',
  auth_url: 'https://accounts.google.com/o/oauth2/v2/auth?client_id=routinely&state=0195f3a2',
  path: '/tasks',
  permission: 'SERVICE_TASK_READ',
  username: 'ada@example.com',
  grant_type: 'password',
  scope: '',
  iss: 'https://routinely.example.com',
  aud: 'routinely',
  jti: '0195f3a2-7c41-7d2e-9b1a-3f6e2d4c5b7b',
  sid: '0195f3a2-7c41-7d2e-9b1a-3f6e2d4c5b7c',
  typ: 'access',
  current_password: 'correct horse battery',
  otpauth_url: 'otpauth://totp/Routinely:ada%40example.com?secret=JBSWY3DPEHPK3PXP&issuer=Routinely',
  qr_code_url: 'https://routinely.example.com/api/v1/auth/mfa/qr.png',
  issuer: 'https://idp.example.com/realms/acme',
  role: 'admin',
  month: '2026-03',
  date: '2026-03-02',
  signature: 't=1772442000,v1=5f2b...',
  response_preview: '{"ok":true}',
  task_title: 'Water the plants',
  reason: 'no_slot_in_window',
  account_email: 'ada@example.com',
  status: 'ok',
  type: 'urn:routinely:problem:not_found',
};

/** By name ending: timestamps and ids whose schema states no format. */
function byNameSuffix(name: string | undefined): string | undefined {
  if (!name) return undefined;
  if (name.endsWith('_at')) return FORMATS['date-time'];
  if (name === 'id' || name.endsWith('_id')) return FORMATS.uuid;
  return undefined;
}

function stringExample(schema: Json, name: string | undefined): string {
  const format = typeof schema.format === 'string' ? FORMATS[schema.format] : undefined;
  const pattern = typeof schema.pattern === 'string' ? new RegExp(schema.pattern) : undefined;
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : Number.POSITIVE_INFINITY;
  const fits = (value: string) => value.length >= min && value.length <= max && (!pattern || pattern.test(value));
  const byName = name ? (BY_NAME[name] ?? byNameSuffix(name)) : undefined;
  for (const candidate of [format, byName, ...(pattern ? PATTERN_CANDIDATES : ['string'])]) {
    if (candidate !== undefined && fits(candidate)) return candidate;
  }
  const base = format ?? byName ?? 'string';
  return base.length < min ? base.padEnd(min, 'x') : base.slice(0, Math.min(base.length, max));
}

function numberExample(schema: Json, integer: boolean): number {
  const min =
    typeof schema.minimum === 'number'
      ? schema.minimum
      : typeof schema.exclusiveMinimum === 'number'
        ? schema.exclusiveMinimum + (integer ? 1 : 0.01)
        : undefined;
  const max =
    typeof schema.maximum === 'number'
      ? schema.maximum
      : typeof schema.exclusiveMaximum === 'number'
        ? schema.exclusiveMaximum - (integer ? 1 : 0.01)
        : undefined;
  let value = min ?? (max !== undefined ? Math.min(max, 1) : 1);
  if (min !== undefined && max !== undefined && min < 1 && max >= 1) value = 1;
  if (typeof schema.multipleOf === 'number') value = Math.ceil(value / schema.multipleOf) * schema.multipleOf;
  return integer ? Math.round(value) : value;
}

/**
 * A value that satisfies `schema` (refs resolved in `document`): stated examples, consts, defaults and enums
 * first, else built from type, format, bounds and pattern. Recursive schemas stop after a few levels (an
 * empty list, or null where allowed); a nullable value takes its non-null form.
 */
export function exampleOf(schema: unknown, document: Json, name?: string, depth = 0): unknown {
  if (!isObject(schema)) return null;
  if (typeof schema.$ref === 'string') {
    if (depth > 6) return undefined;
    const target = schema.$ref
      .replace(/^#\//, '')
      .split('/')
      .reduce<unknown>((node, key) => (isObject(node) ? node[key] : undefined), document);
    return exampleOf(target, document, name, depth + 1);
  }
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.example !== undefined) return schema.example;
  if (schema.const !== undefined) return schema.const;
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum.find((v) => v !== null) ?? null;
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = schema[key];
    if (Array.isArray(branches)) {
      const branch = branches.find((b) => !(isObject(b) && b.type === 'null')) ?? branches[0];
      return exampleOf(branch, document, name, depth);
    }
  }
  if (Array.isArray(schema.allOf)) {
    return Object.assign({}, ...schema.allOf.map((part) => exampleOf(part, document, name, depth)));
  }
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const type = types.find((t) => t !== 'null') ?? types[0];
  switch (type) {
    case 'object':
    case undefined: {
      if (!isObject(schema.properties)) return type === 'object' ? {} : null;
      const out: Json = {};
      for (const [key, property] of Object.entries(schema.properties)) {
        const value = exampleOf(property, document, key, depth + 1);
        if (value !== undefined) out[key] = value;
      }
      return out;
    }
    case 'array': {
      const minItems = typeof schema.minItems === 'number' ? schema.minItems : 0;
      if (depth > 6 && minItems === 0) return [];
      const item = exampleOf(schema.items, document, name, depth + 1);
      if (item === undefined) return [];
      return Array.from({ length: Math.max(1, minItems) }, () => item);
    }
    case 'string':
      return stringExample(schema, name);
    case 'integer':
      return numberExample(schema, true);
    case 'number':
      return numberExample(schema, false);
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return null;
  }
}
