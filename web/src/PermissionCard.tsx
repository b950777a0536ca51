import type { Item } from './session-model';
import { Diff } from './ToolCard';

type Ask = Extract<Item, { kind: 'permission' }>;

const OUTCOME_LABEL: Record<string, string> = { cancelled: 'Cancelled' };

/**
 * A permission request or question answered in place with the agent's own options (including the
 * "always" ones). The first allow option is the keyboard's approve (a), the first reject its reject (r).
 */
export function PermissionCard({ ask, vote }: { ask: Ask; vote: (ask: Ask, optionId: string | null) => void }) {
  const diffs = (ask.toolCall?.content ?? []).filter((c: any) => c.type === 'diff');
  const chosen = ask.outcome === null ? null : ask.options.find((o) => o.optionId === ask.outcome)?.name ?? OUTCOME_LABEL[ask.outcome] ?? ask.outcome;
  return (
    <section class={`permission ${ask.outcome === null ? 'open' : 'done'}`} role="group" aria-label={`Permission: ${ask.title}`}>
      <header>
        <strong>{ask.question ? 'Question' : 'Permission'}</strong> {ask.title}
      </header>
      {ask.toolCall?.rawInput !== undefined && diffs.length === 0 && <pre class="args">{JSON.stringify(ask.toolCall.rawInput, null, 2)}</pre>}
      {diffs.map((d: any, i: number) => (
        <Diff key={i} path={d.path} oldText={d.oldText} newText={d.newText} />
      ))}
      {ask.outcome === null ? (
        <div class="options">
          {ask.options.map((o) => (
            <button key={o.optionId} class={o.kind?.startsWith('reject') ? 'reject' : 'allow'} data-option={o.optionId} onClick={() => vote(ask, o.optionId)}>
              {o.name}
            </button>
          ))}
        </div>
      ) : (
        <div class="muted outcome">Answered: {chosen}</div>
      )}
    </section>
  );
}
