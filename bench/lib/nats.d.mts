// Types for the throwaway NATS server, so the TypeScript tests use the same harness as the benchmarks.
export interface NatsServer {
  readonly url: string;
  readonly port: number;
  /** The server process's PID (it is stopped by it). */
  readonly pid: number;
  stop(): Promise<void>;
}
export declare const CLUSTER_MAX_PAYLOAD: number;
export declare function natsUnavailable(): string | undefined;
export declare function natsMissing(): string | undefined;
export declare function startNats(options?: { maxPayload?: number }): Promise<NatsServer>;
