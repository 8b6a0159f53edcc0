export * from './envoy-config.js';
export * from './gateway.js';
export * from './ports.js';
export * from './topology.js';
