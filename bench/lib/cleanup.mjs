// Cleanups that must run even when a benchmark is interrupted (Ctrl-C, SIGTERM): the daemons
// run in process groups of their own, so the terminal's SIGINT never reaches them, and the
// scratch folder holds a 77 MB fixture.
const pending = new Set();
let hooked = false;

/** Registers `fn` (may be async); returns a function that unregisters it. */
export function registerCleanup(fn) {
  hook();
  pending.add(fn);
  return () => pending.delete(fn);
}

function hook() {
  if (hooked) return;
  hooked = true;
  const onSignal = (signal) => {
    process.stderr.write(`bench: ${signal}, stopping daemons\n`);
    const all = [...pending].reverse();
    pending.clear();
    void (async () => {
      for (const fn of all) {
        try {
          await fn();
        } catch {
          // Keep cleaning the rest.
        }
      }
      process.exit(signal === 'SIGINT' ? 130 : 143);
    })();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
}
