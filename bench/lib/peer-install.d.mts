// Types for the installer, so TypeScript tests can reuse it (the browser suite opens the peer's Web Shell).
export declare const PEER_PACKAGE: string;
export declare const PEER_VERSION: string;
export declare function cacheRoot(): string;
export declare function ensurePeer(options?: { log?: (line: string) => void }): Promise<string>;
