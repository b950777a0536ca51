import { useEffect, useState } from 'preact/hooks';

/**
 * A module the page fetches apart from the app and uses once it is here (highlight.js, the
 * Markdown renderer): nothing waits for it, what needs it shows a plain form until then, and a
 * component that used the plain form renders again when it arrives.
 */
export interface LazyModule<M> {
  /** Asks for the module (once; later calls get the same promise). */
  load(): Promise<M>;
  /** The module if it has arrived, else null. */
  ready(): M | null;
  /** The module or null, rendering the component again when it arrives. */
  use(): M | null;
}

export function lazyModule<M>(importer: () => Promise<M>): LazyModule<M> {
  let ready: M | null = null;
  let loading: Promise<M> | null = null;
  const waiting = new Set<() => void>();
  const load = () =>
    (loading ??= importer().then((m) => {
      ready = m;
      for (const done of waiting) done();
      waiting.clear();
      return m;
    }));
  const use = (): M | null => {
    const [here, setHere] = useState(ready);
    useEffect(() => {
      if (here) return;
      if (ready) return setHere(() => ready);
      const done = () => setHere(() => ready);
      waiting.add(done);
      return () => void waiting.delete(done);
    }, [here]);
    return here;
  };
  return { load, ready: () => ready, use };
}
