import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { Markdown } from './Markdown';
import { PermissionCard } from './PermissionCard';
import type { Item, SessionModel } from './session-model';
import { ToolCard } from './ToolCard';
import { visibleRange, type Range } from './window-range';

type Ask = Extract<Item, { kind: 'permission' }>;

/**
 * A row's height before it was ever rendered, by kind, on the low side of what the styles give
 * (web/src/styles.css: a closed thought or tool card, one line of a message, ~110 characters a
 * line). Measured heights replace it. Low on purpose: the first render, pinned to the bottom,
 * then takes a few rows too many, and the next only drops some; an estimate above the real
 * height leaves the screen short, and every render that adds rows to fill it renders and
 * measures again before the first frame.
 */
function estimate(item: Item): number {
  switch (item.kind) {
    case 'agent':
      return 30 + 20 * Math.floor(item.text.length / 110);
    case 'user':
      return 44 + 20 * Math.floor(item.text.length / 110);
    case 'thought':
    case 'note':
      return 30;
    default:
      return 44;
  }
}
/** Pixels rendered beyond each edge of the viewport, so a quick scroll or a search finds rows in place. */
const OVERSCAN = 1200;
/** Within this distance of the bottom the view follows new output; within it of the top, older pages load. */
const NEAR = 40;

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
 * A windowed list: only the rows near the viewport are in the DOM, the rest stand as two spacers
 * whose heights come from each row's last measured height (an estimate until it was shown), so a
 * transcript of thousands of records scrolls as smoothly as a short one. Reaching the top loads the
 * previous transcript page.
 */
export function Transcript(props: {
  model: SessionModel;
  version: number;
  hasOlder: boolean;
  loadOlder: () => void;
  pagingOlder: boolean;
  vote: (ask: Ask, optionId: string | null, answers?: Record<string, string>) => void;
}) {
  const box = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  const measured = useRef(new Map<string, number>());
  const [view, setView] = useState({ top: 0, height: 800 });
  const [, remeasured] = useState(0);
  // The first frame renders the rows on screen only; the overscan follows once it is painted.
  // Not set by the effect itself: Preact runs a pending effect early when the component renders
  // again (as the first measurement makes it), which would bring the overscan into the first frame.
  const [overscan, setOverscan] = useState(0);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const frame = requestAnimationFrame(() => (timer = setTimeout(() => setOverscan(OVERSCAN))));
    return () => {
      cancelAnimationFrame(frame);
      clearTimeout(timer);
    };
  }, []);
  const items = props.model.items;
  const heights = items.map((i) => measured.current.get(i.key) ?? estimate(i));
  // Pinned to the bottom, the window ends at the last row whatever the estimates say.
  const { start, end, above, below } = pinned.current ? tail(heights, view.height + overscan) : visibleRange(heights, view.top, view.height, overscan);

  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    let changed = false;
    for (const row of el.querySelectorAll<HTMLElement>(':scope > .row')) {
      const key = row.dataset.key!;
      const h = row.offsetHeight;
      if (Math.abs((measured.current.get(key) ?? -1) - h) > 1) {
        measured.current.set(key, h);
        changed = true;
      }
    }
    if (pinned.current) el.scrollTop = el.scrollHeight;
    if (changed) remeasured((n) => n + 1);
  });

  const onScroll = () => {
    const el = box.current!;
    pinned.current = el.scrollHeight - el.scrollTop - el.clientHeight < NEAR;
    setView({ top: el.scrollTop, height: el.clientHeight });
    // The window of the view scrolled to, not of the last render: a render pinned to the bottom
    // starts its window mid-list, and one jump to the top (Home, a fast flick) fires no second event.
    const landed = visibleRange(heights, el.scrollTop, el.clientHeight, overscan);
    if (el.scrollTop < NEAR && landed.start === 0 && props.hasOlder) props.loadOlder();
  };
  return (
    <div class="transcript" ref={box} onScroll={onScroll} aria-live="polite" aria-busy={props.pagingOlder ? 'true' : 'false'}>
      {props.hasOlder && (
        <button class="link older" onClick={props.loadOlder}>
          Show earlier
        </button>
      )}
      <div class="spacer-row" style={{ height: `${above}px` }} />
      {items.slice(start, end).map((item) => (
        <div class="row" key={item.key} data-key={item.key}>
          <Row item={item} vote={props.vote} />
        </div>
      ))}
      <div class="spacer-row" style={{ height: `${below}px` }} />
    </div>
  );
}

/** The last rows that fill `px`, counted up from the bottom. */
function tail(heights: readonly number[], px: number): Range {
  let start = heights.length;
  let y = 0;
  while (start > 0 && y < px) y += heights[--start]!;
  let above = 0;
  for (let i = 0; i < start; i++) above += heights[i]!;
  return { start, end: heights.length, above, below: 0 };
}
