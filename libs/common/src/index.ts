export * from './config/environment.js';
export * from './config/app-config.js';
export * from './config/config.module.js';
export * from './errors/domain.exception.js';
export * from './errors/all-exceptions.filter.js';
export * from './http/event-stream.js';
export * from './graph.js';
export * from './uuid.js';
