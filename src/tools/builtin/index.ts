export * from './local-tools.js';
