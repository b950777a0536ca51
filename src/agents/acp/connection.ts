import * as acp from '@agentclientprotocol/sdk';
import type { AgentProcess } from './process.js';

/**
 * What Berth answers an agent with: the driver implements it. Each method
 * gets params the SDK has already checked against the ACP schema (a request
 * that does not fit is answered `-32602` before it reaches here), and a
 * thrown `acp.RequestError` becomes the agent's error answer.
 */
export interface ClientSide {
  update(params: acp.SessionNotification): void;
  requestPermission(params: acp.RequestPermissionRequest): Promise<acp.RequestPermissionResponse>;
  readTextFile(params: acp.ReadTextFileRequest): Promise<acp.ReadTextFileResponse>;
  writeTextFile(params: acp.WriteTextFileRequest): Promise<acp.WriteTextFileResponse>;
  createTerminal(params: acp.CreateTerminalRequest): Promise<acp.CreateTerminalResponse>;
  terminalOutput(params: acp.TerminalOutputRequest): Promise<acp.TerminalOutputResponse>;
  waitForTerminalExit(params: acp.WaitForTerminalExitRequest): Promise<acp.WaitForTerminalExitResponse>;
  killTerminal(params: acp.KillTerminalRequest): Promise<acp.KillTerminalResponse>;
  releaseTerminal(params: acp.ReleaseTerminalRequest): Promise<acp.ReleaseTerminalResponse>;
}

/** The capabilities Berth offers every agent: its fs and terminals, both served by Berth's tools. */
export const CLIENT_CAPABILITIES: acp.ClientCapabilities = {
  fs: { readTextFile: true, writeTextFile: true },
  terminal: true,
};

/**
 * Opens the ACP client connection on an agent process's stdio with the SDK's
 * builder. Methods Berth does not serve are answered "method not found" by
 * the SDK itself; a line that is not JSON-RPC is answered with an error by
 * its stream without reaching a handler, and a line over `maxMessageBytes`
 * closes the connection (host.ts then stops the process).
 */
export function connectAgent(process: AgentProcess, side: ClientSide, maxMessageBytes: number): acp.ClientConnection {
  const { input, output } = process.streams();
  const app = acp
    .client({ name: 'berth' })
    .onNotification('session/update', ({ params }) => side.update(params))
    .onRequest('session/request_permission', ({ params }) => side.requestPermission(params))
    .onRequest('fs/read_text_file', ({ params }) => side.readTextFile(params))
    .onRequest('fs/write_text_file', ({ params }) => side.writeTextFile(params))
    .onRequest('terminal/create', ({ params }) => side.createTerminal(params))
    .onRequest('terminal/output', ({ params }) => side.terminalOutput(params))
    .onRequest('terminal/wait_for_exit', ({ params }) => side.waitForTerminalExit(params))
    .onRequest('terminal/kill', ({ params }) => side.killTerminal(params))
    .onRequest('terminal/release', ({ params }) => side.releaseTerminal(params));
  return app.connect(acp.ndJsonStream(input, output, { maxMessageBytes }));
}
