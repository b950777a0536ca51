import type { Tool } from '../types.js';
import { workspaceAskTool } from './ask.js';
import type { CommandManager } from './commands/command-manager.js';
import { workspaceDeleteTool } from './delete.js';
import { workspaceDocumentTool } from './document.js';
import { workspaceExecTool, workspaceInputTool, workspacePollTool, workspaceStopTool } from './exec.js';
import { workspaceImageTool } from './image.js';
import { workspaceInfoTool } from './info.js';
import { workspaceListTool } from './list.js';
import { workspacePatchTool } from './patch.js';
import { workspaceReadTool } from './read.js';
import { workspaceWriteTool } from './write.js';

export { CommandManager, type CommandManagerOptions } from './commands/command-manager.js';

export interface LocalWorkspaceToolDeps {
  /** Owns the commands `workspace_exec` starts; the daemon disposes it on shutdown. */
  readonly commands: CommandManager;
  /**
   * How long `workspace_exec` waits for a command when the call names no `waitMs`:
   * the daemon's built-in agent waits (`DEFAULT_EXEC_WAIT_MS`), a gateway owner does not
   * (0, the seed's behaviour, unless the host asks). Default 0.
   */
  readonly execWaitMs?: number;
}

/**
 * The gateway workspace tools that run on a local workspace in the
 * order `contract/gateway-v1.json` lists them. `workspace_tools` and `workspace_tool` belong
 * to the tool layer. Categories: `workspace` for files, `process` for
 * commands, `interaction` for questions to the owner.
 */
export function localWorkspaceTools(deps: LocalWorkspaceToolDeps): Tool[] {
  return [
    workspaceInfoTool(),
    workspaceListTool(),
    workspaceReadTool(),
    workspaceImageTool(),
    workspaceDocumentTool(),
    workspaceWriteTool(),
    workspacePatchTool(),
    workspaceDeleteTool(),
    workspaceExecTool(deps.commands, deps.execWaitMs ?? 0),
    workspacePollTool(deps.commands),
    workspaceInputTool(deps.commands),
    workspaceStopTool(deps.commands),
    workspaceAskTool(),
  ];
}
