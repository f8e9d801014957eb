export * from './workflows.module.js';
export * from './workflows.service.js';
export * from './workflow.entity.js';
export * from './workflow-definition.js';
export * from './engine/workflow-runner.js';
