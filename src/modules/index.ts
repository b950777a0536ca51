export * from './sockets.js';
