export * from './workflows.module.js';
