import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import { BerthError } from '../protocol/errors/index.js';
import type { Logger } from '../log.js';
import type { Session } from '../sessions/session.js';
import type { InboxMessage, ModuleInboxRepository, ModuleTabRepository } from './records.js';
import { moduleEnvironment } from './agent-env.js';
import { AgentTokens } from './agent-tokens.js';
import { refused } from './answer.js';
import type { MessagingContext } from './context.js';
import { offerLater } from './delivery.js';
import { peekInbox, takeInbox } from './inbox.js';
import { list, listedOf, notOpen } from './list.js';
import { mintModuleToken, moduleTokenHash } from './module-tokens.js';
import { isMalformed, parseQuestion } from './question.js';
import { MessageRules } from './rules.js';
import { arrived, send } from './send.js';
import { peerViews, type TabPeers, type TabsHere } from './peers.js';
import { harnessOf, profileOf, TabDirectory, titleOf, type Delivery, type Tab, type TabDeclaration } from './tabs.js';
import type { Answer, Question, Request } from './types.js';

/** One tab as the client API shows it to the session's owner. */
export interface TabView {
  readonly sessionId: string;
  readonly workspaceId: string;
  readonly tab: string;
  readonly title: string;
  readonly harness: string;
  readonly profile: string;
  readonly network: boolean;
  readonly delivery: Delivery;
  readonly waiting: number;
  readonly trouble: string | null;
  /** The workspace's module socket, or null (a remote workspace has none). */
  readonly socket: string | null;
}

export interface MessagingDeps {
  readonly clock: Clock;
  readonly log: Logger;
  readonly tabs: ModuleTabRepository;
  readonly inbox: ModuleInboxRepository;
  readonly newId?: () => string;
}

/**
 * The module protocol's core (docs/modules.md): sessions as tabs, their tokens, the
 * four operations, the rules, the inboxes and delivery to agents. Faces — the
 * workspace socket (src/modules), the built-in agent's tools, the client API
 * route — hand it a question and encode its answer.
 */
export class MessagingService {
  private readonly ctx: MessagingContext;
  private readonly directory: TabDirectory;
  private readonly sockets = new Map<string, string>();

  constructor(private readonly deps: MessagingDeps) {
    this.directory = new TabDirectory(deps.tabs);
    this.ctx = {
      log: deps.log,
      tabs: this.directory,
      inbox: deps.inbox,
      rules: new MessageRules(),
      newId: deps.newId ?? (() => `msg_${randomUUID()}`),
      peers: undefined,
    };
  }

  // ── session life (hooks the session manager calls) ─────────────────────────

  /**
   * A session became live: it is a tab now, and what waited for it is offered once it is idle. A fresh one (never
   * stored) has nothing waiting (messages go only to open tabs), so its first turn ends without reading its inbox.
   */
  async opened(session: Session, fresh = false): Promise<void> {
    const tab = await this.directory.open(session, this.deps.clock.now(), fresh);
    if (fresh) return;
    // After the creating request has its answer; the session may have work queued by then.
    setImmediate(() => {
      if (this.directory.get(session.id) === tab) offerLater(this.ctx, tab, this.deps.clock.now());
    });
  }

  /**
   * A session finished its queued prompts: offer it the next waiting message. Its inbox is
   * read only when something may wait there: a message that came while it worked, or one
   * left by the offer before (on PostgreSQL a read saved on every prompt).
   */
  idle(session: Session): void {
    const tab = this.directory.get(session.id);
    if (tab?.mayHaveMail) offerLater(this.ctx, tab, this.deps.clock.now());
  }

  /** A session closed: it leaves the tab list; its inbox stays in the store. */
  closed(sessionId: string): void {
    this.directory.close(sessionId);
    this.ctx.rules.forget(sessionId);
  }

  /** What a driver knows better than the defaults: its network reach, how it reads messages. */
  declare(sessionId: string, declaration: TabDeclaration): void {
    this.directory.declare(sessionId, declaration);
    const tab = this.directory.get(sessionId);
    // A tab that starts taking prompts gets what already waits for it.
    if (tab && declaration.delivery === 'prompt') offerLater(this.ctx, tab, this.deps.clock.now());
  }

  /** The live tab of a session. */
  tab(sessionId: string): Tab | undefined {
    return this.directory.get(sessionId);
  }

  /** A session's tab as its owner sees it (`GET /session/{id}/module`), or undefined when it is not open. */
  async describe(sessionId: string): Promise<TabView | undefined> {
    const tab = this.directory.get(sessionId);
    if (!tab) return undefined;
    const workspaceId = tab.session.workspace.id;
    return {
      sessionId,
      workspaceId,
      tab: String(tab.tab),
      title: titleOf(tab),
      harness: harnessOf(tab),
      profile: profileOf(tab),
      network: tab.network,
      delivery: tab.delivery,
      waiting: await this.deps.inbox.count(sessionId),
      trouble: tab.trouble,
      socket: this.socketPath(workspaceId),
    };
  }

  /**
   * Every open tab of a workspace as its owner sees it, by number, with the
   * messages waiting in its inbox — left there, as `peek` leaves them.
   */
  async tabsOf(workspaceId: string): Promise<Array<TabView & { readonly inbox: readonly InboxMessage[] }>> {
    const here = (await Promise.all(this.directory.inWorkspace(workspaceId).map((t) => this.describe(t.session.id)))).filter((v) => v !== undefined);
    // Cluster mode: the tabs other nodes run are read from them, their inboxes from the shared store.
    const there = this.ctx.peers ? peerViews(workspaceId, here, await this.ctx.peers.tabsOf(workspaceId), this.socketPath(workspaceId)) : [];
    const views = [...here, ...there].sort((a, b) => Number(a.tab) - Number(b.tab));
    return Promise.all(views.map(async (v) => ({ ...v, inbox: await this.deps.inbox.list(v.sessionId) })));
  }

  /** Whether a presented secret is a module token (so other faces can refuse it by name). */
  async isModuleToken(token: string): Promise<boolean> {
    return token !== '' && (await this.sessionsForToken(moduleTokenHash(token))).length > 0;
  }

  /** Whether a presented module token speaks for this session (the MCP endpoint's bearer, src/mcpserve). */
  async speaksFor(token: string, sessionId: string): Promise<boolean> {
    if (token === '') return false;
    return (await this.deps.tabs.sessionsForToken(moduleTokenHash(token))).includes(sessionId.toLowerCase());
  }

  // ── the other nodes (cluster mode, docs/cluster-bus.md) ───────────────────

  /** From now on `list` and `send` also see the workspace's tabs on the other nodes. */
  joinPeers(peers: TabPeers): void {
    this.ctx.peers = peers;
  }

  /** What this node answers the others: its tabs of a workspace, and a stored message's offer to one of them. */
  readonly here: TabsHere = {
    listedHere: (workspaceId) => listedOf(this.ctx, this.directory.inWorkspace(workspaceId)),
    offerHere: async (sessionId, messageId) => {
      const tab = this.directory.get(sessionId);
      return tab ? arrived(this.ctx, tab, messageId, this.deps.clock.now()) : undefined;
    },
  };

  // ── sockets and tokens ─────────────────────────────────────────────────────

  /** The socket face says where each workspace's socket listens (null: none). */
  setSocketPath(workspaceId: string, path: string | null): void {
    if (path === null) this.sockets.delete(workspaceId);
    else this.sockets.set(workspaceId, path);
  }

  socketPath(workspaceId: string): string | null {
    return this.sockets.get(workspaceId) ?? null;
  }

  hasToken(sessionId: string): Promise<boolean> {
    return this.deps.tabs.hasToken(sessionId);
  }

  /** A new token for one session; the one it held before stops working. Shown to the caller only. */
  issueToken(sessionId: string): Promise<string> {
    return this.shareToken([sessionId]);
  }

  /**
   * One more token for one session, for a second terminal joining as that tab
   * (issue 11): the tokens it already holds — its agent's, another
   * terminal's — keep working. Shown to the caller only.
   */
  async joinToken(sessionId: string): Promise<string> {
    if ((await this.directory.stored(sessionId)) === undefined) {
      throw new BerthError('session_not_found', `Session ${sessionId} is not a tab of any workspace`, { sessionId });
    }
    const token = mintModuleToken();
    await this.deps.tabs.addToken(moduleTokenHash(token), sessionId, this.deps.clock.now());
    return token;
  }

  /**
   * One token for several sessions of one workspace (docs/modules.md: a shared server
   * speaks for every tab of its profile with one token; its questions name the
   * tab with `session`).
   */
  async shareToken(sessionIds: readonly string[]): Promise<string> {
    const stored = await Promise.all(sessionIds.map((id) => this.directory.stored(id)));
    const workspaces = new Set(stored.map((s) => s?.workspaceId));
    if (sessionIds.length === 0 || workspaces.has(undefined) || workspaces.size !== 1) {
      throw new BerthError('invalid_request', 'A module token speaks for one or more open or known tabs of one workspace');
    }
    const token = mintModuleToken();
    await this.deps.tabs.replaceTokens(moduleTokenHash(token), sessionIds, this.deps.clock.now());
    return token;
  }

  /**
   * The environment for an external agent of this session (docs/modules.md,
   * The socket: external agents find the socket path and their token there). Issues
   * the session a fresh token, so call it once per agent process.
   */
  async externalAgentEnv(sessionId: string): Promise<Record<string, string>> {
    const tab = this.directory.get(sessionId);
    const socket = tab ? this.socketPath(tab.session.workspace.id) : null;
    if (!tab || socket === null) {
      throw new BerthError('session_not_found', `Session ${sessionId} is not open on a workspace with a module socket`, { sessionId });
    }
    return moduleEnvironment({ socket, token: await this.issueToken(sessionId), sessionId });
  }

  /**
   * The tokens of external agent processes (agent-tokens.ts): one process
   * serves several sessions of a workspace, so its environment carries one
   * token for all of them, and each question names its tab with `session`.
   */
  readonly agentTokens = new AgentTokens();

  // ── questions ──────────────────────────────────────────────────────────────

  /** One line from a workspace socket, answered (docs/modules.md `parse`, then the operation). */
  async answerQuestion(line: Uint8Array | string, workspaceId: string): Promise<Answer> {
    const question = parseQuestion(line);
    if (isMalformed(question)) {
      return refused('malformed', `Malformed question (${question.reason}); nothing in it was acted on.`);
    }
    const who = await this.authenticate(question, workspaceId);
    if ('ok' in who) return who;
    return this.ask(who.sessionId, question.request);
  }

  /** An operation for a session already known (the built-in agent's tools, or an authenticated line). */
  ask(sessionId: string, request: Request): Promise<Answer> {
    const now = this.deps.clock.now();
    switch (request.op) {
      case 'inbox':
        return takeInbox(this.ctx, sessionId, now);
      case 'peek':
        return peekInbox(this.ctx, sessionId);
      case 'list': {
        const tab = this.directory.get(sessionId);
        return tab ? list(this.ctx, tab) : Promise.resolve(notOpen());
      }
      case 'send': {
        const tab = this.directory.get(sessionId);
        return tab ? send(this.ctx, tab, { to: request.tab, text: request.text, kind: request.kind }, now) : Promise.resolve(notOpen());
      }
    }
  }

  /** The sessions a token hash speaks for: an owner-issued token's (stored), or an agent process's. */
  private async sessionsForToken(hash: string): Promise<string[]> {
    const stored = await this.deps.tabs.sessionsForToken(hash);
    return stored.length > 0 ? stored : this.agentTokens.sessionsFor(hash);
  }

  /** Which session a question speaks for: its token, narrowed by `session` when the token is shared. */
  private async authenticate(question: Question, workspaceId: string): Promise<{ sessionId: string } | Answer> {
    const wrong = refused('unauthorized', 'Refused: this token is not one Berth gave to a tab of this workspace.');
    const sessions = question.token === '' ? [] : await this.sessionsForToken(moduleTokenHash(question.token));
    let sessionId: string | undefined;
    if (question.session !== undefined) {
      sessionId = sessions.find((id) => id === question.session!.toLowerCase());
      if (sessionId === undefined) return wrong;
    } else if (sessions.length === 1) {
      sessionId = sessions[0];
    } else if (sessions.length > 1) {
      return refused('invalid_request', `Refused: this token speaks for ${sessions.length} tabs; name yours with "session".`);
    }
    if (sessionId === undefined) return wrong;
    // A token opens only its own workspace's socket.
    if ((await this.directory.stored(sessionId))?.workspaceId !== workspaceId) return wrong;
    return { sessionId };
  }
}
