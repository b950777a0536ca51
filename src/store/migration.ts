/** One schema step. Applied once, in id order, inside a transaction; never edited after release. */
export interface Migration {
  readonly id: number;
  readonly name: string;
  readonly sql: string;
}
