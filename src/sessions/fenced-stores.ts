import type { SessionStores } from './factories.js';

/** Runs work as a session's owner (SessionOwnership.fenced, bound to one session). */
export type Fenced = <T>(work: () => T) => T;

/** Runs work inside the session's fence when it has one (cluster mode), as it is otherwise. */
export function asOwner<T>(fenced: Fenced | undefined, work: () => T): T {
  return fenced ? fenced(work) : work();
}

/**
 * A session's repositories whose every call runs inside its fence
 * (docs/cluster-leases.md, Fencing): the store reads the fence when a call is
 * made, so each write that session makes, from whatever context submits it
 * (a request, the event bus, its write chain), carries the lease token.
 */
export function fencedStores(stores: SessionStores, fenced: Fenced): SessionStores {
  return {
    sessions: fenceEach(stores.sessions, fenced),
    transcript: fenceEach(stores.transcript, fenced),
    prompts: fenceEach(stores.prompts, fenced),
    ...(stores.grants ? { grants: fenceEach(stores.grants, fenced) } : {}),
    ...(stores.checkpoints ? { checkpoints: fenceEach(stores.checkpoints, fenced) } : {}),
  };
}

function fenceEach<R extends object>(repo: R, fenced: Fenced): R {
  return new Proxy(repo, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => fenced(() => (value as (...a: unknown[]) => unknown).apply(target, args));
    },
  });
}
