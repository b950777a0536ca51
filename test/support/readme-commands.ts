/**
 * README.md read as a script (issue 11): its `##` sections, their fenced code
 * blocks, and each shell block cut into the commands a person types — lines
 * joined where they end in `\`, then split at ` && ` the way the shell runs
 * them one after another.
 */

export interface ReadmeBlock {
  readonly section: string;
  readonly lang: string;
  readonly text: string;
}

export function readmeBlocks(markdown: string): ReadmeBlock[] {
  const blocks: ReadmeBlock[] = [];
  let section = '';
  let open: { lang: string; lines: string[] } | null = null;
  for (const line of markdown.split('\n')) {
    if (open) {
      if (line.startsWith('```')) {
        blocks.push({ section, lang: open.lang, text: open.lines.join('\n') });
        open = null;
      } else open.lines.push(line);
      continue;
    }
    const heading = /^## (.+)$/.exec(line);
    if (heading) section = heading[1]!.trim();
    const fence = /^```(\S*)/.exec(line);
    if (fence) open = { lang: fence[1]!, lines: [] };
  }
  if (open) throw new Error(`README.md has an unclosed code block in "${section}"`);
  return blocks;
}

/** The commands of one shell block, in order: continuation lines joined, `a && b` split into a and b. */
export function commandsOf(block: string): string[] {
  const joined = block.replace(/\\\n\s*/g, ' ');
  return joined
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .flatMap((l) => l.split(' && ').map((c) => c.trim()));
}
