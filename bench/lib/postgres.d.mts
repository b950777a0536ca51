// Types for the throwaway PostgreSQL, so the TypeScript tests use the same harness as the benchmarks.
export interface PostgresServer {
  readonly port: number;
  /** The server process's PID (it is stopped by it). */
  readonly pid: number;
  /** Whether fsync, synchronous_commit and full_page_writes are on. */
  readonly durable: boolean;
  /** A URL for a new, empty database on this server. */
  createDatabase(name?: string): Promise<string>;
  /** Stops the server (fast shutdown) and keeps its data, until `resume`. */
  halt(): Promise<void>;
  /** Starts the halted server again on its data and port. */
  resume(): Promise<void>;
  stop(): Promise<void>;
}
export declare function postgresBinDir(): string | undefined;
export declare function postgresUnavailable(): string | undefined;
export declare function postgresMissing(): string | undefined;
export declare function startPostgres(options?: { durable?: boolean }): Promise<PostgresServer>;
