export * from './route-modules.js';
