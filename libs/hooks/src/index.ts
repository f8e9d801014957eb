export * from './hooks.module.js';
