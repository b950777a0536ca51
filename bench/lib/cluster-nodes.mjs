// The daemons the cluster benchmark measures and how a client reaches them. A target is one or
// more Berth processes from dist/: a single daemon (SQLite, or PostgreSQL without a node id) or
// the nodes of one cluster (`--store postgres://… --bus nats://… --node-id n<i>`, one home each,
// one shared workspace, one owner token file). `balancer(urls)` spreads requests over nodes
// round robin, one request at a time, as a load balancer in front of them would.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { startBerth } from '../berth.mjs';
import { registerCleanup } from './cleanup.mjs';
import { keepAliveClient } from './http-client.mjs';
import { openEventStream } from './sse-stream.mjs';
import { makeSmallWorkspace } from './small-workspace.mjs';

/** A scratch folder removed on close (or on Ctrl-C): `{dir, remove}`. */
function scratchDir(label) {
  const dir = mkdtempSync(join(tmpdir(), `berth-bench-cluster-${label}-`));
  const unregister = registerCleanup(() => rmSync(dir, { recursive: true, force: true }));
  return {
    dir,
    remove() {
      rmSync(dir, { recursive: true, force: true });
      unregister();
    },
  };
}

const profileArgs = (profileDir, label) => (profileDir ? ['--cpu-prof', '--cpu-prof-dir', join(profileDir, label)] : []);

/** A fresh owner token and the file `--token-file` reads it from. */
function ownerToken(dir) {
  const token = randomBytes(24).toString('hex');
  const file = join(dir, 'owner-token');
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  return { token, file };
}

/**
 * One daemon on its own workspace; `storeUrl` puts its store in PostgreSQL. `{label, procs, urls, token, close}`.
 * With an owner token, as the nodes have: an anonymous loopback daemon looks up who opened each new
 * connection (src/net/peer-uid.ts), work the nodes never do, and that once made the callers of a
 * block start out of step (fewer requests at once, so lower latencies for the daemon doing more).
 */
export async function bootSingle(label, { modelUrl, storeUrl, profileDir }) {
  const scratch = scratchDir(label);
  const workspace = join(scratch.dir, 'ws');
  makeSmallWorkspace(workspace);
  try {
    const owner = ownerToken(scratch.dir);
    const extraArgs = [...(storeUrl ? ['--store', storeUrl] : []), '--token-file', owner.file];
    const proc = await startBerth({ workspace, scratch: scratch.dir, modelUrl, nodeArgs: profileArgs(profileDir, label), extraArgs });
    await proc.ready();
    return target(label, [proc], owner.token, scratch);
  } catch (error) {
    scratch.remove();
    throw error;
  }
}

/**
 * `count` cluster nodes on one PostgreSQL database and one NATS server, started one after the
 * other, sharing a workspace (nodes must see it at the same path) and an owner token (a forwarded
 * request carries the client's bearer to the owner, docs/cluster-bus.md).
 */
export async function bootCluster(label, { count, modelUrl, storeUrl, busUrl, profileDir }) {
  const scratch = scratchDir(label);
  const workspace = join(scratch.dir, 'ws');
  makeSmallWorkspace(workspace);
  const { token, file: tokenFile } = ownerToken(scratch.dir);
  const procs = [];
  try {
    for (let i = 1; i <= count; i += 1) {
      const nodeScratch = join(scratch.dir, `node-${i}`);
      mkdirSync(nodeScratch);
      const extraArgs = ['--store', storeUrl, '--bus', busUrl, '--node-id', `n${i}`, '--token-file', tokenFile];
      const proc = await startBerth({ workspace, scratch: nodeScratch, modelUrl, nodeArgs: profileArgs(profileDir, `${label}-n${i}`), extraArgs });
      procs.push(proc);
      await proc.ready();
    }
    return target(label, procs, token, scratch);
  } catch (error) {
    for (const p of procs.reverse()) await p.stop().catch(() => undefined);
    scratch.remove();
    throw error;
  }
}

function target(label, procs, token, scratch) {
  return {
    label,
    procs,
    urls: procs.map((p) => p.url),
    token,
    async close() {
      for (const p of [...procs].reverse()) await p.stop();
      scratch.remove();
    },
  };
}

/**
 * A client of `urls` (the first `nodes` of a target) that sends each request to the next node in
 * turn, each node over its own keep-alive connection: `{post, get, delete, close}` as
 * keepAliveClient, plus `subscribe(sessionId)` opening the event stream on the next node. With the
 * target's token every request carries it as the bearer.
 */
export function balancer(t, nodes = t.urls.length) {
  const urls = t.urls.slice(0, nodes);
  const auth = t.token ? { authorization: `Bearer ${t.token}` } : {};
  let next = 0;
  const pick = () => urls[next++ % urls.length];
  const clients = new Map();
  const clientOf = (url) => {
    if (!clients.has(url)) clients.set(url, keepAliveClient(url));
    return clients.get(url);
  };
  return {
    nodes: urls.length,
    post: (path, body) => clientOf(pick()).post(path, body, auth),
    get: (path) => clientOf(pick()).get(path, auth),
    delete: (path) => clientOf(pick()).delete(path, auth),
    /** The same request on node `i` of the target, not the next one: for the forwarding row. */
    on: (i) => ({ get: (path) => clientOf(urls[i]).get(path, auth), post: (path, body) => clientOf(urls[i]).post(path, body, auth) }),
    subscribe: (sessionId) => openEventStream(pick(), `/session/${encodeURIComponent(sessionId)}/events`, { headers: auth }),
    close() {
      for (const c of clients.values()) c.close();
    },
  };
}
