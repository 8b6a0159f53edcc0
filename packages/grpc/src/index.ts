export * from './identity.js';
export * from './rpc.js';
