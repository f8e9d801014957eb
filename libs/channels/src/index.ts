export * from './channels.module.js';
