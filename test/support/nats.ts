/**
 * A real NATS server for tests: the harness the benchmarks use too (bench/lib/nats.mjs), Debian's
 * `nats-server` on a free loopback port with a config file naming its `max_payload`, stopped by
 * PID, with a watchdog. Without the binary (or with BERTH_TEST_NATS=off) `natsMissing()` says why
 * and the tests skip.
 */
export { CLUSTER_MAX_PAYLOAD, natsMissing, startNats, type NatsServer } from '../../bench/lib/nats.mjs';
