/**
 * A real PostgreSQL for tests: the harness the benchmarks use too (bench/lib/postgres.mjs), from
 * the Debian server binaries, on loopback, stopped by PID, run as the `postgres` user when root,
 * with a watchdog. Tests take it with durability off (the default) for speed. Without the
 * binaries (or with BERTH_TEST_POSTGRES=off) `postgresMissing()` says why and the tests skip.
 */
export { postgresBinDir, postgresMissing, startPostgres, type PostgresServer } from '../../bench/lib/postgres.mjs';
