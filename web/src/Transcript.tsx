import { useEffect, useRef } from 'preact/hooks';
import { Markdown } from './Markdown';
import { PermissionCard } from './PermissionCard';
import type { Item, SessionModel } from './session-model';
import { ToolCard } from './ToolCard';

type Ask = Extract<Item, { kind: 'permission' }>;

/**
 * How many of the newest items are rendered at first: a screen shows a dozen, and each Markdown
 * answer costs a parse and a sanitise. Scrolling to the top renders the next WINDOW.
 */
const WINDOW = 60;

function Row({ item, vote }: { item: Item; vote: (ask: Ask, optionId: string | null, answers?: Record<string, string>) => void }) {
  switch (item.kind) {
    case 'user':
      return <div class="msg user">{item.text}</div>;
    case 'agent':
      return (
        <div class="msg agent">
          <Markdown text={item.text} />
        </div>
      );
    case 'thought':
      return (
        <details class="thought">
          <summary>Thought</summary>
          <div class="muted">{item.text}</div>
        </details>
      );
    case 'plan':
      return (
        <ol class="plan" aria-label="Plan">
          {item.entries.map((e, i) => (
            <li key={i} class={`plan-${e.status}`}>
              {e.content}
            </li>
          ))}
        </ol>
      );
    case 'tool':
      return <ToolCard tool={item} />;
    case 'permission':
      return <PermissionCard ask={item} vote={vote} />;
    case 'note':
      return <div class={`note ${item.tone}`}>{item.text}</div>;
    case 'rewind':
      return (
        <div class="rewind" role="note">
          <strong>Rewound</strong>: {item.undone} {item.undone === 1 ? 'turn' : 'turns'} undone, {item.keptTurns} kept
          {item.filesChanged.length > 0 && <span> · files restored: {item.filesChanged.join(', ')}</span>}
          {item.filesFailed.length > 0 && <span class="refused"> · not restored: {item.filesFailed.join(', ')}</span>}
        </div>
      );
  }
}

/**
 * The conversation, newest at the bottom, following new output while the reader is at the bottom.
 * Only the last WINDOW items are in the DOM until the reader asks for more, so long transcripts stay smooth.
 */
export function Transcript(props: {
  model: SessionModel;
  version: number;
  shown: number;
  showMore: () => void;
  hasOlder: boolean;
  loadOlder: () => void;
  vote: (ask: Ask, optionId: string | null, answers?: Record<string, string>) => void;
}) {
  const box = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  const items = props.model.items;
  const start = Math.max(0, items.length - Math.max(WINDOW, props.shown));
  useEffect(() => {
    const el = box.current;
    if (el && pinned.current) el.scrollTop = el.scrollHeight;
  }, [props.version]);
  const onScroll = () => {
    const el = box.current!;
    pinned.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
    if (el.scrollTop === 0) {
      if (start > 0) props.showMore();
      else if (props.hasOlder) props.loadOlder();
    }
  };
  return (
    <div class="transcript" ref={box} onScroll={onScroll} aria-live="polite">
      {(start > 0 || props.hasOlder) && (
        <button class="link older" onClick={() => (start > 0 ? props.showMore() : props.loadOlder())}>
          Show earlier
        </button>
      )}
      {items.slice(start).map((item) => (
        <Row key={item.key} item={item} vote={props.vote} />
      ))}
    </div>
  );
}
