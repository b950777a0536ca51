import { after, afterEach, before, beforeEach, describe } from 'node:test';
import { effectCases } from './cases/effects.js';
import { ledgerCases } from './cases/ledgers.js';
import { moduleCases } from './cases/modules.js';
import { sessionCases } from './cases/sessions.js';
import { transcriptCases } from './cases/transcript.js';
import { postgresEngine, sqliteEngine, type Handle } from './engines.js';

// One suite, written against the asynchronous repositories, run on each engine (issue 18).
for (const engine of [sqliteEngine, postgresEngine()]) {
  describe(`store repositories on ${engine.name}`, { skip: engine.skip }, () => {
    let handle: Handle | undefined;
    const current = (): Handle => handle!;
    before(() => engine.start());
    after(() => engine.stop());
    beforeEach(async () => {
      handle = await engine.fresh();
    });
    afterEach(async () => {
      await handle?.close();
      handle = undefined;
    });
    sessionCases(current);
    transcriptCases(current);
    ledgerCases(current);
    moduleCases(current);
    effectCases(current);
  });
}
