import type { Migration } from '../migration.js';

/**
 * The whole data of transcript records stored as previews (src/transcript/bound-record.ts):
 * a record over the size bound keeps a preview in `transcript` and its full JSON here,
 * written in the same transaction and removed with its session.
 */
export const m007TranscriptOverflow: Migration = {
  id: 7,
  name: 'transcript_overflow',
  sql: `
    CREATE TABLE transcript_overflow (
      record_id TEXT PRIMARY KEY,
      session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
      data TEXT NOT NULL
    );
    CREATE INDEX transcript_overflow_by_session ON transcript_overflow (session_id);
  `,
};
