import { splitClientModelId } from '../agents/models/model-id.js';
import type { Session } from '../sessions/session.js';
import type { ModuleTabRepository } from './records.js';

/**
 * How a tab's messages reach its agent: `prompt` — offered as its next prompt
 * once it is idle (the built-in agent, any driver Berth feeds prompts to);
 * `inbox` — they wait until the agent asks `inbox` itself (an external agent
 * that reads the socket on its own schedule).
 */
export type Delivery = 'prompt' | 'inbox';

/** One live session as the module protocol sees it: a tab (docs/architecture.md, Session "a tab"). */
export interface Tab {
  readonly session: Session;
  readonly tab: number;
  /** Whether the session's tools may reach the network (the network rule's input). */
  network: boolean;
  delivery: Delivery;
  /** Why its waiting messages could not be delivered, or null. */
  trouble: string | null;
  /** The offer of its next message under way (delivery.ts keeps one at a time). */
  offering: Promise<void>;
  /**
   * Whether its inbox may hold a message no offer has handed over: false for a session created
   * just now, and after an offer read the inbox empty, until a message comes (every message stored
   * for it is offered at once, and an offer sets this first).
   */
  mayHaveMail: boolean;
}

/** What a driver says about itself when it knows better than the defaults. */
export interface TabDeclaration {
  readonly network?: boolean;
  readonly delivery?: Delivery;
}

/**
 * The tabs of every workspace: each live session, with the number the store
 * gave it. A number is assigned once per session and never reused in its
 * workspace, so it names the same session across restarts.
 *
 * Network flag: true unless the session's driver declares otherwise. The
 * built-in agent's `workspace_exec` runs commands that can reach the network,
 * so claiming less for it would defeat the network rule.
 */
export class TabDirectory {
  private readonly live = new Map<string, Tab>();
  /** The same tabs by workspace and number: a send names its receiver by number, among possibly thousands. */
  private readonly numbered = new Map<string, Map<number, Tab>>();

  constructor(private readonly repo: ModuleTabRepository) {}

  /** `empty`: the session was created just now, so nothing can wait in its inbox yet. */
  async open(session: Session, now: number, empty = false): Promise<Tab> {
    const existing = this.live.get(session.id);
    if (existing) return existing;
    const number = await this.repo.assign(session.id, session.workspace.id, now);
    const tab: Tab = this.live.get(session.id) ?? {
      session,
      tab: number,
      network: true,
      delivery: 'prompt',
      trouble: null,
      offering: Promise.resolve(),
      mayHaveMail: !empty,
    };
    this.live.set(session.id, tab);
    const inWorkspace = this.numbered.get(session.workspace.id) ?? new Map<number, Tab>();
    inWorkspace.set(tab.tab, tab);
    this.numbered.set(session.workspace.id, inWorkspace);
    return tab;
  }

  close(sessionId: string): void {
    const tab = this.live.get(sessionId);
    if (!tab) return;
    this.live.delete(sessionId);
    const inWorkspace = this.numbered.get(tab.session.workspace.id);
    inWorkspace?.delete(tab.tab);
    if (inWorkspace?.size === 0) this.numbered.delete(tab.session.workspace.id);
  }

  /** The open tab numbered `tab` in the workspace. */
  numberedIn(workspaceId: string, tab: number): Tab | undefined {
    return this.numbered.get(workspaceId)?.get(tab);
  }

  get(sessionId: string): Tab | undefined {
    return this.live.get(sessionId);
  }

  declare(sessionId: string, declaration: TabDeclaration): void {
    const tab = this.live.get(sessionId);
    if (!tab) return;
    if (declaration.network !== undefined) tab.network = declaration.network;
    if (declaration.delivery !== undefined) tab.delivery = declaration.delivery;
  }

  /** The open tabs of a workspace, by number. */
  inWorkspace(workspaceId: string): Tab[] {
    return [...this.live.values()].filter((t) => t.session.workspace.id === workspaceId).sort((a, b) => a.tab - b.tab);
  }

  /** The number and workspace a session was given, live or not. */
  async stored(sessionId: string): Promise<{ tab: number; workspaceId: string } | undefined> {
    const live = this.live.get(sessionId);
    return live ? { tab: live.tab, workspaceId: live.session.workspace.id } : this.repo.find(sessionId);
  }
}

/** The tab's title: the session's display name, or `tab N`. */
export function titleOf(tab: Tab): string {
  return tab.session.displayName ?? `tab ${tab.tab}`;
}

/** How texts name a tab: `tab 3`, with its title when it has one of its own: `tab 3 (reviewer)`. */
export function nameOf(t: { readonly tab: number | string; readonly title: string }): string {
  return t.title === `tab ${t.tab}` ? `tab ${t.tab}` : `tab ${t.tab} (${t.title})`;
}

export function tabName(t: Tab): string {
  return nameOf({ tab: t.tab, title: titleOf(t) });
}

/** The harness: the driver's own name (`built-in`, or an external agent's). */
export function harnessOf(tab: Tab): string {
  return tab.session.harness;
}

/** The profile: the model service the session runs on, or its harness when it has none. */
export function profileOf(tab: Tab): string {
  const current = tab.session.models().currentModelId;
  return (current !== null ? splitClientModelId(current)?.serviceId : undefined) ?? harnessOf(tab);
}

/** How a sender is named to a receiver: `harness · title` (docs/modules.md `Received.from`). */
export function labelOf(tab: Tab): string {
  return `${harnessOf(tab)} · ${titleOf(tab)}`;
}
