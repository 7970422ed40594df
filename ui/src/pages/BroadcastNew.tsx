// The Broadcasts list (newest first, compared by rate) with the compose form: a name, blank or one
// of the team's templates (its published version: a design opens in the visual editor, changeable
// before the draft is saved), segment and topic with the audience size, from and subject. Also the
// segment and topic pickers that the draft's page uses too.
import { useState } from 'preact/hooks';
import { get, post, type List } from '../api';
import { TemplatePicker, type FromTemplate } from './broadcasts/TemplatePicker';
import { Alert, Empty, Loading, PageHead } from '../components/ui';
import { AudienceSize } from '../components/AudienceSize';
import { EmailContent, loadEditor, type Body } from '../components/EmailContent';
import { BroadcastCompare, type BroadcastItem } from '../components/BroadcastCompare';
import { useAction, useLoad, usePaged } from '../hooks';
import { navigate } from '../router';
import { canEdit, useSession } from '../session';

interface Named {
  id: string;
  name: string;
}

export function Pickers({
  segment,
  topic,
  onSegment,
  onTopic,
  disabled,
}: {
  segment: string;
  topic: string;
  onSegment: (v: string) => void;
  onTopic: (v: string) => void;
  disabled?: boolean;
}) {
  const segments = useLoad(() => get<List<Named>>('/segments'), []);
  const topics = useLoad(() => get<List<Named>>('/topics?limit=100'), []);
  return (
    <>
      <div class="field">
        <label for="bc-segment">Segment</label>
        <select
          id="bc-segment"
          value={segment}
          onChange={(e) => onSegment(e.currentTarget.value)}
          disabled={disabled}
          required
        >
          <option value="">Choose a segment</option>
          {segments.data?.data.map((s) => (
            <option key={s.id} value={s.id}>
              {s.name}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="bc-topic">Topic (only its subscribers receive it)</label>
        <select id="bc-topic" value={topic} onChange={(e) => onTopic(e.currentTarget.value)} disabled={disabled}>
          <option value="">No topic: everyone subscribed to list mail</option>
          {topics.data?.data.map((t) => (
            <option key={t.id} value={t.id}>
              {t.name}
            </option>
          ))}
        </select>
      </div>
      <AudienceSize segment={segment} topic={topic} />
    </>
  );
}

export function Broadcasts() {
  const { state } = useSession();
  const list = usePaged<BroadcastItem>(
    (after) => `/broadcasts?limit=50&stats=true${after ? `&after=${after}` : ''}`,
    'broadcasts',
  );
  const [segment, setSegment] = useState('');
  const [topic, setTopic] = useState('');
  const [from, setFrom] = useState('');
  const [subject, setSubject] = useState('');
  const [tpl, setTpl] = useState<FromTemplate | null>(null);
  // The visual editor's design, from the template's document or a blank one; null: raw HTML as given.
  const [design, setDesign] = useState<Body | null>(null);
  // A template fills From and Subject and gives the body; a new value of one of its variables
  // refills them unless the author has edited them since.
  const onTemplate = (t: FromTemplate | null) => {
    const prev = tpl;
    setTpl(t);
    const fresh = !prev || prev.id !== t?.id;
    if (t?.from && (fresh || from === (prev?.from ?? ''))) setFrom(t.from);
    if (t?.subject && (fresh || subject === (prev?.subject ?? ''))) setSubject(t.subject);
    const untouched = JSON.stringify(design?.document ?? null) === JSON.stringify(prev?.document ?? null);
    if (fresh || untouched) setDesign(t?.document ? { document: t.document, html: t.html } : null);
  };
  const create = useAction(async (form: HTMLFormElement) => {
    const fd = new FormData(form);
    const body = design?.document
      ? { document: design.document }
      : tpl
        ? { html: tpl.html, text: tpl.text }
        : {
            html: '<p>Hello {{{contact.first_name|there}}},</p>\n<p></p>\n<p><a href="{{{RESEND_UNSUBSCRIBE_URL}}}">Unsubscribe</a></p>',
          };
    const r = await post<{ id: string }>('/broadcasts', {
      name: fd.get('name'),
      segment_id: segment,
      topic_id: topic || null,
      from,
      subject,
      ...body,
    });
    navigate(`/broadcasts/${r.id}`);
  });
  return (
    <>
      <PageHead
        title="Broadcasts"
        sub="One message to a segment, personal to each contact, sent by a queue job that survives restarts."
      />
      {canEdit(state) && (
        <form
          class="card"
          onSubmit={(e) => {
            e.preventDefault();
            create.run(e.currentTarget as HTMLFormElement);
          }}
        >
          <h2>New broadcast</h2>
          <div class="field">
            <label for="bc-name">Name</label>
            <input id="bc-name" name="name" maxLength={256} placeholder="October newsletter" />
          </div>
          <TemplatePicker onChange={onTemplate} />
          <Pickers segment={segment} topic={topic} onSegment={setSegment} onTopic={setTopic} />
          <div class="field">
            <label for="bc-from">From</label>
            <input
              id="bc-from"
              name="from"
              required
              value={from}
              onInput={(e) => setFrom(e.currentTarget.value)}
              placeholder="Acme <news@example.com>"
            />
          </div>
          <div class="field">
            <label for="bc-subject">Subject</label>
            <input
              id="bc-subject"
              name="subject"
              required
              value={subject}
              onInput={(e) => setSubject(e.currentTarget.value)}
              placeholder="News for {{{contact.first_name|you}}}"
            />
          </div>
          {tpl && tpl.missing.length > 0 && (
            <Alert kind="warn">No value for {tpl.missing.join(', ')}: left as written in the broadcast.</Alert>
          )}
          {design?.document ? (
            <EmailContent
              id="bc-new-html"
              label="HTML"
              title="the new broadcast"
              value={design}
              onChange={(f) => setDesign((x) => f(x ?? { document: null, html: '' }))}
            />
          ) : (
            !tpl && (
              <p>
                <button
                  type="button"
                  class="btn"
                  onClick={async () => setDesign({ document: (await loadEditor()).starter(), html: '' })}
                >
                  Design it in the visual editor
                </button>
              </p>
            )
          )}
          <button class="btn primary" disabled={create.busy}>
            Create draft
          </button>
        </form>
      )}
      {create.error && <Alert>{create.error}</Alert>}
      {list.error && <Alert>{list.error}</Alert>}
      {!list.loaded ? (
        <Loading />
      ) : list.rows.length === 0 ? (
        <Empty title="No broadcasts yet">
          Create one here or with <code>resend.broadcasts.create()</code>.
        </Empty>
      ) : (
        <BroadcastCompare list={list} rows={list.rows} />
      )}
    </>
  );
}
