export * from './confirmations.module.js';
export * from './confirmation.types.js';
export * from './confirmation.service.js';
export * from './confirmation-waiter.js';
export * from './confirmation-gate.hook.js';
export * from './approver-check.js';
export * from './confirmation-inbox-stream.js';
