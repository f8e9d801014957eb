export * from './data-source.js';
export * from './database.module.js';
export * from './database-target.module.js';
export * from './transaction-runner.js';
export * from './snake-naming.strategy.js';
export * from './migrations/index.js';
export * from './pg-notification-listener.js';
export * from './leases.js';
