import { MAX_CATALOG_TOOLS, MAX_TOOL_NAME_CHARS } from '../protocol/limits.js';
import { BerthError } from '../protocol/errors/index.js';
import { checkToolSchema } from '../protocol/tools/arguments.js';
import type { ApplicationLink } from './application-link.js';
import { availabilityOf, definitionOf } from '../protocol/tools/definitions.js';
import { POLICIES, type Tool, type ToolAvailability } from './types.js';

/** What a disconnected application's tools report until it reconnects (docs/tool-protocol.md runtime object). */
const DISCONNECTED: ToolAvailability = {
  available: false,
  code: 'application_disconnected',
  reason: 'The application that publishes this tool is not connected',
  remediation: 'Wait for the application to reconnect',
  retryable: true,
};

interface Publication {
  connected: boolean;
  readonly tools: Map<string, Tool>;
  readonly overrides: Map<string, ToolAvailability>;
  readonly link: ApplicationLink | undefined;
  /** The cluster node the application is connected to, for a copy of another node's publication (src/cluster/app-mirror.ts). */
  readonly origin: string | undefined;
}

/** Told each time an application connected to this daemon publishes, disconnects or is withdrawn. */
export type PublicationWatcher = (workspaceId: string, applicationId: string) => void;

/**
 * The application tools published per workspace (docs/gateway.md `workspace_tools`;
 * docs/tool-protocol.md applications). The tool-protocol face adds an application's
 * catalog with `publish`, reports runtime changes with `setAvailability`,
 * and calls `disconnect` when the socket drops: the tools stay listed but
 * unavailable until the application publishes again. `withdraw` removes them.
 * Tool names are unique within a workspace across applications.
 */
export class ApplicationToolRegistry {
  private readonly workspaces = new Map<string, Map<string, Publication>>();
  private readonly watchers: PublicationWatcher[] = [];

  /**
   * Replaces everything `applicationId` publishes in `workspaceId` and marks
   * it connected. The whole list is checked first and refused whole: empty or
   * repeated names, unknown policies, schemas that do not compile, more than
   * MAX_CATALOG_TOOLS tools, or a name another application already publishes.
   * `link` is the application's raw protocol line, for in-process hosts (application-link.ts);
   * `origin` names the cluster node a copied publication lives on.
   */
  publish(workspaceId: string, applicationId: string, tools: readonly Tool[], link?: ApplicationLink, origin?: string): void {
    const apps = this.appsOf(workspaceId);
    const taken = new Map<string, string>();
    for (const [otherId, other] of apps) {
      if (otherId !== applicationId) for (const name of other.tools.keys()) taken.set(name, otherId);
    }
    if (tools.length > MAX_CATALOG_TOOLS) {
      throw new BerthError('invalid_request', `An application may publish at most ${MAX_CATALOG_TOOLS} tools`);
    }
    const published = new Map<string, Tool>();
    for (const tool of tools) {
      checkTool(tool);
      if (published.has(tool.name)) throw new BerthError('invalid_request', `Tool ${tool.name} is published twice`);
      const owner = taken.get(tool.name);
      if (owner !== undefined) {
        throw new BerthError('tool_name_conflict', `Application ${owner} already publishes a tool named ${tool.name}`, {
          tool: tool.name,
        });
      }
      published.set(tool.name, tool);
    }
    const publication: Publication = { connected: true, tools: new Map(), overrides: new Map(), link, origin };
    for (const [name, tool] of published) publication.tools.set(name, withRuntimeState(tool, publication));
    apps.set(applicationId, publication);
    this.changed(workspaceId, applicationId, publication);
  }

  /** Watches the publications of applications connected here (with a link, not copies from other nodes). */
  watch(watcher: PublicationWatcher): void {
    this.watchers.push(watcher);
  }

  /** A publication of an application connected here, as a watcher reads it; undefined once withdrawn. */
  connectedHere(workspaceId: string, applicationId: string): { connected: boolean; tools: Tool[] } | undefined {
    const p = this.workspaces.get(workspaceId)?.get(applicationId);
    if (!p || p.link === undefined || p.origin !== undefined) return undefined;
    return { connected: p.connected, tools: [...p.tools.values()] };
  }

  /** Every workspace and application id connected here. */
  connectedIds(): Array<[workspaceId: string, applicationId: string]> {
    const out: Array<[string, string]> = [];
    for (const [ws, apps] of this.workspaces) for (const id of apps.keys()) if (this.connectedHere(ws, id)) out.push([ws, id]);
    return out;
  }

  private changed(workspaceId: string, applicationId: string, publication: Publication | undefined): void {
    if (publication && (publication.link === undefined || publication.origin !== undefined)) return;
    for (const watcher of this.watchers) watcher(workspaceId, applicationId);
  }

  /** The application's socket dropped: its tools stay visible but unavailable (`application_disconnected`). */
  disconnect(workspaceId: string, applicationId: string): void {
    const publication = this.workspaces.get(workspaceId)?.get(applicationId);
    if (!publication) return;
    publication.connected = false;
    this.changed(workspaceId, applicationId, publication);
  }

  withdraw(workspaceId: string, applicationId: string): void {
    const apps = this.workspaces.get(workspaceId);
    const publication = apps?.get(applicationId);
    apps?.delete(applicationId);
    if (apps && apps.size === 0) this.workspaces.delete(workspaceId);
    if (publication) this.changed(workspaceId, applicationId, publication);
  }

  /** Records a runtime change the application reported; `null` returns to the tool's own probe. */
  setAvailability(workspaceId: string, applicationId: string, toolName: string, availability: ToolAvailability | null): void {
    const publication = this.workspaces.get(workspaceId)?.get(applicationId);
    if (!publication?.tools.has(toolName)) {
      throw new BerthError('unknown_tool', `Application ${applicationId} publishes no tool named ${toolName}`);
    }
    if (availability) publication.overrides.set(toolName, availability);
    else publication.overrides.delete(toolName);
  }

  /** The connected application's protocol line, when it published one and is still connected. */
  link(workspaceId: string, applicationId: string): ApplicationLink | undefined {
    const publication = this.workspaces.get(workspaceId)?.get(applicationId);
    return publication?.connected ? publication.link : undefined;
  }

  /** Every application tool of a workspace, sorted by name. */
  list(workspaceId: string): Tool[] {
    const tools: Tool[] = [];
    for (const publication of this.workspaces.get(workspaceId)?.values() ?? []) tools.push(...publication.tools.values());
    return tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** Each application of a workspace, by id: whether it is connected, and its tools sorted by name. */
  applications(workspaceId: string): Array<{ applicationId: string; connected: boolean; tools: Tool[] }> {
    return [...(this.workspaces.get(workspaceId) ?? [])]
      .map(([applicationId, p]) => ({
        applicationId,
        connected: p.connected,
        tools: [...p.tools.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
      }))
      .sort((a, b) => (a.applicationId < b.applicationId ? -1 : a.applicationId > b.applicationId ? 1 : 0));
  }

  /** The application that publishes tool `name` in a workspace. */
  applicationOf(workspaceId: string, name: string): string | undefined {
    for (const [applicationId, publication] of this.workspaces.get(workspaceId) ?? []) {
      if (publication.tools.has(name)) return applicationId;
    }
    return undefined;
  }

  get(workspaceId: string, name: string): Tool | undefined {
    for (const publication of this.workspaces.get(workspaceId)?.values() ?? []) {
      const tool = publication.tools.get(name);
      if (tool) return tool;
    }
    return undefined;
  }

  private appsOf(workspaceId: string): Map<string, Publication> {
    let apps = this.workspaces.get(workspaceId);
    if (!apps) {
      apps = new Map();
      this.workspaces.set(workspaceId, apps);
    }
    return apps;
  }
}

function checkTool(tool: Tool): void {
  if (typeof tool.name !== 'string' || tool.name.trim() === '' || tool.name.length > MAX_TOOL_NAME_CHARS) {
    throw new BerthError('invalid_request', `Every published tool needs a name of 1 to ${MAX_TOOL_NAME_CHARS} characters`);
  }
  if (!POLICIES.includes(tool.policy)) {
    throw new BerthError('invalid_request', `Tool ${tool.name} has an unknown policy ${String(tool.policy)}`);
  }
  checkToolSchema(tool.inputSchema, `Tool ${tool.name}`);
  if (tool.outputSchema) checkToolSchema(tool.outputSchema, `Tool ${tool.name} outputSchema`);
}

/** The published tool, answering availability from the connection and the latest reported state. */
function withRuntimeState(tool: Tool, publication: Publication): Tool {
  return Object.freeze({
    ...definitionOf(tool),
    availability: () =>
      publication.connected ? (publication.overrides.get(tool.name) ?? availabilityOf(tool)) : DISCONNECTED,
    run: tool.run.bind(tool),
  });
}
