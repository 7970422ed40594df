// The automation builder: the steps top to bottom from the trigger, an "add step" between steps,
// a condition's or wait's two branches side by side (stacked on a phone), each step's fields, and
// the server's 422 shown on the step it names. Edits change the tree in place; `changed` re-renders.
import { useState } from 'preact/hooks';
import {
  ADDABLE,
  branching,
  branchWords,
  freshKey,
  hasTimeout,
  insert,
  newNode,
  remove,
  STEP_WORDS,
  type Node,
  type StepType,
  type Refs,
} from '../automation-model';
import { StepFields } from './StepEditors';

interface Ctx {
  tree: Node[];
  refs: Refs;
  changed: () => void;
  edit: boolean;
  errors: Map<string, string>;
}

export function AutomationBuilder({ tree, refs, changed, edit, errors }: Ctx) {
  const ctx = { tree, refs, changed, edit, errors };
  return (
    <div class="flow-root" data-testid="builder">
      <Flow flow={tree} ctx={ctx} where="the trigger" />
    </div>
  );
}

/** A flow of steps; `where` names its start for the add control ("the trigger", "wait_1: Timed out"). */
function Flow({ flow, ctx, where, branchStart }: { flow: Node[]; ctx: Ctx; where: string; branchStart?: boolean }) {
  return (
    <ol class="flow">
      {branchStart && ctx.edit && (
        <li class="flow-gap">
          <AddStep ctx={ctx} flow={flow} at={0} after={where} />
        </li>
      )}
      {flow.map((n, i) => (
        <li key={n.key} class="flow-item">
          <StepCard
            node={n}
            ctx={ctx}
            onRemove={
              n.type === 'trigger'
                ? undefined
                : () => {
                    if (
                      branching(n) &&
                      n.no.length &&
                      !confirm(`Remove ${n.key} and the steps of its "${branchWords(n)[1]}" branch?`)
                    )
                      return;
                    remove(flow, i);
                    ctx.changed();
                  }
            }
          />
          {branching(n) ? (
            <Branches node={n} ctx={ctx} />
          ) : (
            ctx.edit && (
              <div class="flow-gap">
                <AddStep ctx={ctx} flow={flow} at={i + 1} after={n.key} />
              </div>
            )
          )}
        </li>
      ))}
      {!branchStart && flow.length === 0 && <li class="muted small">No steps.</li>}
    </ol>
  );
}

function Branches({ node, ctx }: { node: Node; ctx: Ctx }) {
  const [yes, no] = branchWords(node);
  const two = node.type === 'condition' || hasTimeout(node);
  return (
    <div class={two ? 'branches two' : 'branches'}>
      <section class="branch" aria-label={`${node.key}: ${yes}`}>
        <h4 class="branch-head ok">{two ? yes : 'Then'}</h4>
        <Flow flow={node.yes} ctx={ctx} where={`${node.key}: ${two ? yes : 'then'}`} branchStart />
        {node.yes.length === 0 && (
          <p class="muted small">{two ? 'No steps: the run ends here.' : 'The run ends once the event arrives.'}</p>
        )}
      </section>
      {two && (
        <section class="branch" aria-label={`${node.key}: ${no}`}>
          <h4 class="branch-head bad">{no}</h4>
          <Flow flow={node.no} ctx={ctx} where={`${node.key}: ${no}`} branchStart />
          {node.no.length === 0 && <p class="muted small">No steps: the run ends here.</p>}
        </section>
      )}
    </div>
  );
}

function StepCard({ node, ctx, onRemove }: { node: Node; ctx: Ctx; onRemove?: () => void }) {
  const err = ctx.errors.get(node.key);
  return (
    <section
      class={`step-card step-${node.type}${err ? ' has-error' : ''}`}
      aria-label={`Step ${node.key}`}
      data-testid="step"
      data-key={node.key}
    >
      <header class="step-head">
        <strong>{STEP_WORDS[node.type]}</strong> <span class="mono muted small">{node.key}</span>
        {onRemove && ctx.edit && (
          <button type="button" class="btn ghost sm" onClick={onRemove} aria-label={`Remove step ${node.key}`}>
            Remove
          </button>
        )}
      </header>
      <StepFields node={node} refs={ctx.refs} changed={ctx.changed} edit={ctx.edit} />
      {err && (
        <p class="step-error" role="alert">
          {err}
        </p>
      )}
    </section>
  );
}

function AddStep({ ctx, flow, at, after }: { ctx: Ctx; flow: Node[]; at: number; after: string }) {
  const [type, setType] = useState<StepType>('send_email');
  return (
    <span class="add-step">
      <select
        aria-label={`Step to add after ${after}`}
        value={type}
        onChange={(e) => setType((e.currentTarget as HTMLSelectElement).value as StepType)}
      >
        {ADDABLE.map((t) => (
          <option key={t} value={t}>
            {STEP_WORDS[t]}
          </option>
        ))}
      </select>
      <button
        type="button"
        class="btn sm"
        aria-label={`Add step after ${after}`}
        onClick={() => {
          insert(flow, at, newNode(type, freshKey(ctx.tree, type)));
          ctx.changed();
        }}
      >
        + Add step
      </button>
    </span>
  );
}
