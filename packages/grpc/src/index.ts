export * from './caller-owner.js';
export * from './identity.js';
export * from './rpc.js';
export * from './validate.js';
