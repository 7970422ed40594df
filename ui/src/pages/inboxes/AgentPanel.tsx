// The inbox agent's settings (GET/PATCH /inboxes/:inbox/agent): instructions, tone and the actions
// it may take, and plainly whether a model is configured (without one nothing runs).
import { get, patch } from '../../api';
import { Alert, ErrorRetry, Loading } from '../../components/ui';
import { useAction, useLoad } from '../../hooks';
import { useState } from 'preact/hooks';
import { inboxPath } from './types';

interface Agent {
  instructions: string | null;
  tone: string | null;
  actions: string[];
  model_configured: boolean;
}
const TONES: [string, string][] = [
  ['concise_professional', 'Concise, professional'],
  ['concise_casual', 'Concise, casual'],
  ['expanded_professional', 'Detailed, professional'],
  ['expanded_casual', 'Detailed, casual'],
];
const ACTIONS: [string, string][] = [
  ['draft_reply', 'Draft replies (never sent without you)'],
  ['forward_thread', 'Draft forwards'],
  ['add_labels', 'Add labels'],
  ['assign_thread', 'Assign to a team member'],
  ['mark_as_spam', 'Mark as spam'],
  ['archive', 'Archive'],
  ['move_to_trash', 'Move to trash'],
];

export function AgentPanel({ inbox, close }: { inbox: string; close: () => void }) {
  const agent = useLoad(() => get<Agent>(inboxPath(inbox, '/agent')), [inbox]);
  const [saved, setSaved] = useState(false);
  const save = useAction(async (form: HTMLFormElement) => {
    const f = new FormData(form);
    setSaved(false);
    await patch(inboxPath(inbox, '/agent'), {
      instructions: String(f.get('instructions') ?? '') || null,
      tone: String(f.get('tone') ?? '') || null,
      actions: f.getAll('actions').map(String),
    });
    setSaved(true);
  });
  return (
    <section class="card ib-agent" aria-labelledby="ib-agent-title">
      <div class="ib-pane-head">
        <h2 id="ib-agent-title">Inbox agent</h2>
        <button type="button" class="btn sm ghost" onClick={close}>
          Close
        </button>
      </div>
      {agent.error && <ErrorRetry error={agent.error} status={agent.errorStatus} retry={agent.reload} />}
      {!agent.data ? (
        !agent.error && <Loading />
      ) : (
        <>
          {agent.data.model_configured ? (
            <Alert kind="info">
              A model is configured: the agent reads each new email with these instructions and takes only the actions
              ticked below. It never sends: replies and forwards become drafts.
            </Alert>
          ) : (
            <Alert kind="warn">
              No model is configured, so the agent is not running. These settings are stored and take effect once the
              operator sets <code>MAILROOM_AGENT_MODEL_URL</code> and <code>MAILROOM_AGENT_MODEL</code>.
            </Alert>
          )}
          <form
            onSubmit={(e) => {
              e.preventDefault();
              save.run(e.currentTarget);
            }}
          >
            <div class="field">
              <label for="ib-agent-instructions">Instructions</label>
              <textarea
                id="ib-agent-instructions"
                name="instructions"
                rows={6}
                maxLength={4000}
                defaultValue={agent.data.instructions ?? ''}
                placeholder="For example: label billing questions “Billing” and draft a short answer."
              />
              <p class="hint">Up to 4,000 characters. The email's own words never change what the agent may do.</p>
            </div>
            <div class="field">
              <label for="ib-agent-tone">Tone</label>
              <select id="ib-agent-tone" name="tone" defaultValue={agent.data.tone ?? ''}>
                <option value="">Not set</option>
                {TONES.map(([v, t]) => (
                  <option key={v} value={v}>
                    {t}
                  </option>
                ))}
              </select>
            </div>
            <fieldset class="field">
              <legend class="strong">Allowed actions (none: the agent is off)</legend>
              {ACTIONS.map(([v, t]) => (
                <label key={v} class="check">
                  <input type="checkbox" name="actions" value={v} defaultChecked={agent.data!.actions.includes(v)} />
                  {t}
                </label>
              ))}
            </fieldset>
            <div class="row">
              <button class="btn primary" disabled={save.busy}>
                Save agent settings
              </button>
              {saved && (
                <span class="muted" role="status">
                  Saved
                </span>
              )}
            </div>
            {save.error && <Alert>{save.error}</Alert>}
          </form>
        </>
      )}
    </section>
  );
}
