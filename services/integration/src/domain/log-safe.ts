/**
 * What a failed provider call or sync logs. Provider errors and our own say only a status or a fixed sentence; a database error's
 * message quotes the statement and its parameters (event titles, cursors), so only its class and SQLSTATE go.
 */
export function describeFailure(error: unknown): string {
  if (!(error instanceof Error)) return 'unknown error';
  const sqlState = (error as { sqlState?: unknown; code?: unknown }).sqlState ?? (error as { code?: unknown }).code;
  if (typeof sqlState === 'string' && /^[0-9A-Z]{5}$/.test(sqlState)) return `${error.name} (SQLSTATE ${sqlState})`;
  return `${error.name}: ${error.message}`;
}
