export * from './evals.module.js';
