import { useState } from 'preact/hooks';
import type { Item } from './session-model';
import { Diff } from './ToolCard';

type Ask = Extract<Item, { kind: 'permission' }>;

const OUTCOME_LABEL: Record<string, string> = { cancelled: 'Cancelled' };

/**
 * A permission request or question answered in place with the agent's own options (including the
 * "always" ones). The first allow option is the keyboard's approve (a), the first reject its reject (r).
 */
type Vote = (ask: Ask, optionId: string | null, answers?: Record<string, string>) => void;

interface Question {
  readonly question: string;
  readonly answerKey: string;
  readonly options?: { label: string }[];
}

/** A question from the agent (`workspace_ask`): one answer box per question, sent with the allow option. */
function QuestionForm({ ask, vote }: { ask: Ask; vote: Vote }) {
  const questions: Question[] = ask.toolCall?._meta?.questions ?? [];
  const [answers, setAnswers] = useState<Record<string, string>>({});
  const allow = ask.options.find((o) => o.kind?.startsWith('allow'));
  const skip = ask.options.find((o) => o.kind?.startsWith('reject'));
  return (
    <form
      class="question"
      onSubmit={(e) => {
        e.preventDefault();
        if (allow) vote(ask, allow.optionId, answers);
      }}
    >
      {questions.map((q) => (
        <label key={q.answerKey}>
          {q.question}
          <input aria-label={q.question} value={answers[q.answerKey] ?? ''} onInput={(e) => setAnswers({ ...answers, [q.answerKey]: (e.target as HTMLInputElement).value })} />
        </label>
      ))}
      <div class="options">
        <button type="submit" class="allow">
          Answer
        </button>
        {skip && (
          <button type="button" class="reject" onClick={() => vote(ask, skip.optionId)}>
            {skip.name}
          </button>
        )}
      </div>
    </form>
  );
}

export function PermissionCard({ ask, vote }: { ask: Ask; vote: Vote }) {
  const diffs = (ask.toolCall?.content ?? []).filter((c: any) => c.type === 'diff');
  const chosen = ask.outcome === null ? null : ask.options.find((o) => o.optionId === ask.outcome)?.name ?? OUTCOME_LABEL[ask.outcome] ?? ask.outcome;
  return (
    <section class={`permission ${ask.outcome === null ? 'open' : 'done'}`} role="group" aria-label={`Permission: ${ask.title}`}>
      <header>
        <strong>{ask.question ? 'Question' : 'Permission'}</strong> {ask.title}
      </header>
      {ask.toolCall?.rawInput !== undefined && diffs.length === 0 && !ask.question && <pre class="args">{JSON.stringify(ask.toolCall.rawInput, null, 2)}</pre>}
      {diffs.map((d: any, i: number) => (
        <Diff key={i} path={d.path} oldText={d.oldText} newText={d.newText} />
      ))}
      {ask.outcome === null && ask.question ? (
        <QuestionForm ask={ask} vote={vote} />
      ) : ask.outcome === null ? (
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
