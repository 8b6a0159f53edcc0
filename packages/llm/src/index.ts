export * from './agent.js';
export * from './anthropic-adapter.js';
export * from './documents.js';
export * from './errors.js';
export * from './openai-adapter.js';
export * from './plain-text.js';
export * from './pricing.js';
export * from './providers.js';
export type * from './types.js';
