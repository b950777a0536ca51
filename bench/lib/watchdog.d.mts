// Types for the shared pieces of the throwaway servers (watchdog.mjs).
export declare function freePort(): Promise<number>;
export declare function watchOver(pid: number, dir: string, signal: 'QUIT' | 'TERM'): { disarm(): void };
