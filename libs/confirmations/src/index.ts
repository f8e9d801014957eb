export * from './confirmations.module.js';
