import type { CheckpointRepository, FileEffect, NewFileEffect } from './records.js';

/** Checkpoints in memory, for a session built without a store (tests, tools): lost on restart. */
export class MemoryCheckpointRepository implements CheckpointRepository {
  private readonly blobs = new Map<string, Buffer>();
  private rows: FileEffect[] = [];
  private nextId = 1;

  async putBlob(sessionId: string, sha256: string, content: Buffer): Promise<void> {
    if (!this.blobs.has(`${sessionId}:${sha256}`)) this.blobs.set(`${sessionId}:${sha256}`, content);
  }

  async blob(sessionId: string, sha256: string): Promise<Buffer | undefined> {
    return this.blobs.get(`${sessionId}:${sha256}`);
  }

  async blobBytes(sessionId: string): Promise<number> {
    let n = 0;
    for (const [key, content] of this.blobs) if (key.startsWith(`${sessionId}:`)) n += content.length;
    return n;
  }

  async addEffect(effect: NewFileEffect): Promise<number> {
    const id = this.nextId++;
    this.rows.push({ ...effect, id, after: 'pending', afterSha256: null, undoneBy: null });
    return id;
  }

  async settleEffect(id: number, after: 'file' | 'absent', afterSha256: string | null): Promise<void> {
    this.rows = this.rows.map((r) => (r.id === id ? { ...r, after, afterSha256 } : r));
  }

  async dropEffect(id: number): Promise<void> {
    this.rows = this.rows.filter((r) => r.id !== id);
  }

  async effects(sessionId: string): Promise<FileEffect[]> {
    return this.rows.filter((r) => r.sessionId === sessionId);
  }

  async evictOldest(sessionId: string): Promise<boolean> {
    const kept = this.rows.filter((r) => r.sessionId === sessionId && r.prior === 'file');
    const oldest = kept.find((r) => r.undoneBy !== null) ?? kept[0];
    if (oldest) this.rows = this.rows.map((r) => (r === oldest ? { ...r, prior: 'evicted' } : r));
    const needed = new Set(this.rows.filter((r) => r.sessionId === sessionId && r.prior === 'file').map((r) => r.priorSha256));
    for (const key of [...this.blobs.keys()]) {
      if (key.startsWith(`${sessionId}:`) && !needed.has(key.slice(sessionId.length + 1))) this.blobs.delete(key);
    }
    return oldest !== undefined;
  }

  async markUndone(ids: readonly number[], rewindId: string): Promise<void> {
    const set = new Set(ids);
    this.rows = this.rows.map((r) => (set.has(r.id) ? { ...r, undoneBy: rewindId } : r));
  }
}
