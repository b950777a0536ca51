export * from './formats.js';
