/**
 * The webhook retry schedule of the topology the e2e tier boots: 300 ms a wait instead of the spec's 5 s, 30 s,
 * ..., so a retry is seen in well under a second. A deployed cluster (E2E_BASE_URL) keeps the spec's schedule, so
 * the tests assert only the lower bound.
 */
export const E2E_RETRY_WAIT_MS = 300;
export const E2E_RETRY_WAITS_MS = Array.from({ length: 8 }, () => E2E_RETRY_WAIT_MS).join(',');
