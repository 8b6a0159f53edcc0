// TestTokens and defined live in @routinely/platform/testing; re-exported for the tests that take them from here.
export { defined, TestTokens, type TestUser } from '@routinely/platform/testing';
export * from './fake-calendar-oauth.js';
export * from './fake-google.js';
export { GOOGLE_WRITE_SCOPE, googleRateLimitBody } from './fake-google-writes.js';
export * from './fake-idp.js';
export { FakeIdpBrowser } from './fake-idp-browser.js';
export * from './fake-llm.js';
export * from './fake-microsoft.js';
export { MICROSOFT_WRITE_SCOPE } from './fake-microsoft-writes.js';
export * from './fake-written-calendars.js';
export * from './host-env.js';
export * from './http.js';
export * from './infra.js';
export * from './route-guards.js';
export * from './service-harness.js';
export * from './smtp.js';
export * from './wait.js';
export * from './webhook-receiver.js';
