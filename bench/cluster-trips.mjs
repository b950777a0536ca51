// Counts the PostgreSQL round trips of one `POST /session` and one prompt on a one-node
// PostgreSQL + NATS cluster, from PostgreSQL's own statement log (every query the server
// received, with its connection's application name), after a warm-up of each. A transaction sent
// as one pipeline of prepared statements (docs/store.md, Round trips) logs one `execute` per
// statement: the executes of one transaction on one connection count as one round trip (a
// longer transaction that sends more after its first pipeline is then undercounted).
//
//   node bench/cluster-trips.mjs [checkout]      (a folder with a built dist/, default: this one)
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { balancer, bootCluster } from './lib/cluster-nodes.mjs';
import { startModel } from './lib/model.mjs';
import { startNats } from './lib/nats.mjs';
import { startPostgres } from './lib/postgres.mjs';
import { createSession, promptTurn } from './lib/session-steps.mjs';

const [dir = process.cwd()] = process.argv.slice(2);
process.env.BERTH_BENCH_BERTH_DIR = dir;
const model = await startModel();
const server = await startPostgres({ durable: true });
const bus = await startNats();
const adminUrl = await server.createDatabase('trips');
const admin = new pg.Client({ connectionString: adminUrl });
await admin.connect();
const dataDir = (await admin.query('SHOW data_directory')).rows[0].data_directory;
for (const s of ["logging_collector = on", "log_destination = 'csvlog'", "log_statement = 'all'", "log_min_messages = warning"]) {
  await admin.query(`ALTER SYSTEM SET ${s}`);
}
await admin.end();
await server.halt();
await server.resume();
const t = await bootCluster('trips', { count: 1, modelUrl: model.url, storeUrl: adminUrl, busUrl: bus.url });
const marker = new pg.Client({ connectionString: adminUrl, application_name: 'marker' });
await marker.connect();
const mark = (m) => marker.query(`SELECT 'mark ${m}'`);
const client = balancer(t, 1);
let sessionId;
await createSession(client);
await mark('session');
({ sessionId } = await createSession(client));
await new Promise((r) => setTimeout(r, 300));
await mark('session-end');
const stream = await client.subscribe(sessionId);
await promptTurn(client, stream, sessionId, 'Say hello');
await new Promise((r) => setTimeout(r, 300));
await mark('prompt');
await promptTurn(client, stream, sessionId, 'Say hello');
await new Promise((r) => setTimeout(r, 300));
await mark('prompt-end');
stream.close?.();
client.close();
await marker.end();
await t.close();
const logDir = join(dataDir, 'log');
const lines = readdirSync(logDir).filter((f) => f.endsWith('.csv')).sort().map((f) => readFileSync(join(logDir, f), 'utf8')).join('');
await server.stop();
await bus.stop?.();
await model.close?.();
const records = lines.split(/\n(?=\d{4}-\d\d-\d\d )/);
let section;
const out = new Map();
/** The leading fields of a csvlog record, up to the virtual transaction id (the 10th). */
const fieldsOf = (r) => [...r.matchAll(/("(?:[^"]|"")*"|[^,]*),/g)].slice(0, 10).map((m) => m[1].replace(/^"|"$/g, ''));
let last;
for (const r of records) {
  const m = /'mark ([a-z-]+)'/.exec(r);
  if (m && r.includes('marker')) { section = m[1].endsWith('-end') ? undefined : m[1]; continue; }
  if (!section || !/statement: |execute [^:]*: /.test(r)) continue;
  const app = /,"?(berth[^,"]*)"?,/.exec(r)?.[1] ?? '?';
  const text = (/(?:statement|execute [^:]*): ([\s\S]*?)",/.exec(r)?.[1] ?? r).replace(/\s+/g, ' ').replace(/SELECT \(CASE WHEN count.*? AS held;/, '<fence>;').slice(0, 200);
  if (!out.has(section)) out.set(section, []);
  const [, , , pid, , , , , , vxid] = fieldsOf(r);
  const trip = /execute [^:]*: /.test(r) ? `${pid} ${vxid}` : undefined;
  const list = out.get(section);
  if (trip !== undefined && trip === last) list.at(-1).push(text);
  else list.push([`${app}: ${text}`]);
  last = trip;
}
for (const [s, list] of out) {
  console.log(`${s}: ${list.length} round trips`);
  for (const l of list) console.log(`  ${l.join(' | ')}`);
}
