export * from './re2-pattern.js';
export * from './glob-match.js';
export * from './cel-regex.js';
