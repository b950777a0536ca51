/**
 * What the scripted model "says" in the demo turn: reasoning, text and a
 * `workspace_write` (asks first: a write), then a `workspace_exec` (asks
 * first: critical; it waits for the command, so its answer carries what the
 * command printed), then a closing answer. Plain JSON steps, sent to the
 * scripted model's control route. Small pauses make the streaming visible.
 */
export const DEMO_FILE = 'hello.txt';
export const DEMO_CONTENT = 'Hello from Berth!\nThis file was written by the agent after you approved it.\n';
export const DEMO_PROMPT = `Create ${DEMO_FILE} with a friendly greeting, then check it from the shell.`;

const pause = 25;

export const DEMO_STEPS = [
  {
    kind: 'reply',
    reasoning: 'The user wants a greeting file. I will write it with workspace_write, then look at it with a shell command.',
    text: `I'll create ${DEMO_FILE} first.`,
    toolCalls: [{ name: 'workspace_write', arguments: { path: DEMO_FILE, content: DEMO_CONTENT, expectedSha256: null } }],
    chunkChars: 8,
    delayMs: pause,
  },
  {
    kind: 'reply',
    reasoning: 'The file is written. Now a quick check from the shell.',
    text: 'Written. Now let me check it from the shell.',
    toolCalls: [{ name: 'workspace_exec', arguments: { command: `wc -l ${DEMO_FILE}` } }],
    chunkChars: 8,
    delayMs: pause,
  },
  {
    kind: 'reply',
    text: "That's all: whatever you approved is done.",
    chunkChars: 8,
    delayMs: pause,
  },
];
