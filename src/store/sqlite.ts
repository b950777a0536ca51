import type Database from 'better-sqlite3';

/** An open SQLite connection (better-sqlite3): what every SQLite repository is built on. */
export type Db = Database.Database;
