import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SessionToolSets } from '../../../src/gateway/owner/session-tool-sets.js';
import { allowWithoutAsking } from '../../../src/tools/permission.js';
import { ReceiptJournal } from '../../../src/tools/receipt-journal.js';
import { ToolService } from '../../../src/tools/service.js';
import { countingTool, fakeWorkspace, fixedClock } from '../../support/tools.js';

describe("the owner's tool set per session", () => {
  const workspace = fakeWorkspace();
  const noReceipts = new ReceiptJournal({
    find: async () => undefined,
    begin: async () => true,
    complete: async () => undefined,
    pruneCompletedBefore: async () => 0,
    startedSince: async () => [],
  });
  const service = () => {
    const tools = new ToolService({ journal: noReceipts, clock: fixedClock() });
    const host = [countingTool('workspace_read')];
    tools.setHostTools('local', () => host);
    return tools;
  };
  const options = (sessionId: string) => ({ workspace, sessionId, namespace: `gateway:${workspace.id}:${sessionId}`, permission: allowWithoutAsking });

  it('builds one set per session and gives it to every call of that session', () => {
    const sets = new SessionToolSets(service());
    const first = sets.forCall(options('s1'));
    assert.equal(sets.forCall(options('s1')), first);
    assert.notEqual(sets.forCall(options('s2')), first);
  });

  it('builds a set per call while applications publish tools, so each call sees the tools published now', () => {
    const tools = service();
    const sets = new SessionToolSets(tools);
    const before = sets.forCall(options('s1'));
    // An MCP server's tools join the set itself: a set kept from before would not have them.
    tools.applications.publish(workspace.id, 'app', [countingTool('srv.echo', { category: 'mcp:srv' })]);
    const during = sets.forCall(options('s1'));
    assert.ok(during.all().some((t) => t.name === 'srv.echo'));
    assert.notEqual(sets.forCall(options('s1')), during);
    tools.applications.withdraw(workspace.id, 'app');
    const after = sets.forCall(options('s1'));
    assert.notEqual(after, before, 'a set kept from before the publication is not handed out again');
    assert.equal(sets.forCall(options('s1')), after);
  });
});
