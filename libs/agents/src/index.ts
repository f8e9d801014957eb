export * from './agents.module.js';
