export * from './policy-in-force.js';
export * from './authorize.js';
