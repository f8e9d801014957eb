export * from './evals.module.js';
export * from './evals.service.js';
export * from './eval.entity.js';
