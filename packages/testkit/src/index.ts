export * from './fake-idp.js';
export { FakeIdpBrowser } from './fake-idp-browser.js';
export * from './http.js';
export * from './infra.js';
export * from './smtp.js';
export * from './tokens.js';
export * from './webhook-receiver.js';
