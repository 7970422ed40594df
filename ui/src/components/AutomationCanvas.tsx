// The automation as a canvas (read-only): the saved graph laid out top-down from the trigger, a
// condition's or wait's branches side by side, connectors between steps drawn in SVG, and each step
// a card with its counts from GET /automations/:id/counts (reached, waiting, exited, failed; for a
// send, its emails and their delivered/opened/clicked rates). Wider than the screen, it scrolls
// inside its own frame (and zooms out), so nothing overflows the page on a phone.
import { useState } from 'preact/hooks';
import { STEP_WORDS, type ApiConnection, type ApiStep } from '../automation-model';

export interface StepCounts {
  key: string;
  reached: number;
  waiting: number;
  exited: number;
  failed: number;
  emails?: { sent: number; delivered: number; opened: number; clicked: number };
}

const CARD_W = 232;
const GAP_X = 20;
const GAP_Y = 40;
const END_W = 110;
const END_H = 32;
const cardH = (s: ApiStep) => (s.type === 'send_email' ? 172 : 124);

interface Box {
  id: string; // the step key, or `${from}:end:${type}` for an empty branch's end
  step?: ApiStep;
  x: number;
  y: number;
  w: number;
  h: number;
}
interface Edge {
  from: Box;
  to: Box;
  label?: string;
}

const LABELS: Record<string, string> = {
  condition_met: 'Yes',
  condition_not_met: 'No',
  event_received: 'Event',
  timeout: 'Timed out',
};

/** Where each step goes: a subtree is as wide as its branches side by side; a step reached twice is drawn once. */
export function layout(
  steps: ApiStep[],
  connections: ApiConnection[],
): { boxes: Box[]; edges: Edge[]; w: number; h: number } {
  const byKey = new Map(steps.map((s) => [s.key, s]));
  const trigger = steps.find((s) => s.type === 'trigger');
  const boxes: Box[] = [];
  const edges: Edge[] = [];
  if (!trigger) return { boxes, edges, w: 0, h: 0 };
  // The slots under a step, in order: a condition always has its two (an empty one ends the run).
  const slots = (s: ApiStep): { type: string; to: string | null }[] => {
    const out = connections.filter((c) => c.from === s.key);
    if (s.type === 'condition')
      return ['condition_met', 'condition_not_met'].map((type) => ({
        type,
        to: out.find((c) => c.type === type)?.to ?? null,
      }));
    const order = ['event_received', 'default', 'timeout'];
    return out
      .filter((c) => byKey.has(c.to))
      .sort((a, b) => order.indexOf(a.type) - order.indexOf(b.type))
      .map((c) => ({ type: c.type, to: c.to }));
  };
  // Each step's subtree width, drawn once (first visit); joins point back at the first drawing.
  const owner = new Map<string, string>(); // step key -> the parent key that draws it
  const widths = new Map<string, number>();
  const measure = (key: string, parent: string): number => {
    if (owner.has(key) && owner.get(key) !== parent) return 0;
    owner.set(key, parent);
    const s = byKey.get(key)!;
    const kids = slots(s)
      .map((sl) => (sl.to === null ? END_W : measure(sl.to, key)))
      .filter((w) => w > 0);
    const sum = kids.reduce((a, b) => a + b, 0) + GAP_X * Math.max(0, kids.length - 1);
    const w = Math.max(CARD_W, sum);
    widths.set(key, w);
    return w;
  };
  measure(trigger.key, '');
  const placed = new Map<string, Box>();
  const place = (key: string, left: number, top: number): Box => {
    const s = byKey.get(key)!;
    const w = widths.get(key)!;
    const box: Box = { id: key, step: s, x: left + (w - CARD_W) / 2, y: top, w: CARD_W, h: cardH(s) };
    boxes.push(box);
    placed.set(key, box);
    const kids = slots(s);
    const ws = kids.map((k) => (k.to === null ? END_W : owner.get(k.to) === key ? widths.get(k.to)! : 0));
    const sum =
      ws.filter((x) => x > 0).reduce((a, b) => a + b, 0) + GAP_X * Math.max(0, ws.filter((x) => x > 0).length - 1);
    let x = left + (w - sum) / 2;
    const y = top + box.h + GAP_Y;
    kids.forEach((k, i) => {
      const label = LABELS[k.type];
      if (k.to === null) {
        const end: Box = { id: `${key}:end:${k.type}`, x, y, w: END_W, h: END_H };
        boxes.push(end);
        edges.push({ from: box, to: end, label });
      } else if (owner.get(k.to) === key && !placed.has(k.to)) {
        edges.push({ from: box, to: place(k.to, x, y), label });
      } else {
        return; // a join: connected after every step is placed
      }
      x += ws[i] + GAP_X;
    });
    return box;
  };
  place(trigger.key, 0, 0);
  // Connections to a step drawn elsewhere (two branches joining one step).
  for (const c of connections) {
    const from = placed.get(c.from);
    const to = placed.get(c.to);
    if (from && to && owner.get(c.to) !== c.from) edges.push({ from, to, label: LABELS[c.type] });
  }
  const w = Math.max(...boxes.map((b) => b.x + b.w));
  const h = Math.max(...boxes.map((b) => b.y + b.h));
  return { boxes, edges, w, h };
}

const pct = (n: number, of: number) => (of ? `${Math.round((n / of) * 100)}%` : '—');

function Count({ name, n, tone }: { name: string; n: number | undefined; tone?: string }) {
  return (
    <div class={`cv-count${tone && n ? ` ${tone}` : ''}`}>
      <span class="cv-n" data-count={name}>
        {n ?? '…'}
      </span>
      <span class="cv-l">{name}</span>
    </div>
  );
}

function Card({ box, counts, title }: { box: Box; counts?: StepCounts; title: string }) {
  const s = box.step!;
  const m = counts?.emails;
  return (
    <div
      class={`cv-card cv-${s.type}`}
      style={{ left: `${box.x}px`, top: `${box.y}px`, width: `${box.w}px`, height: `${box.h}px` }}
      data-testid="canvas-step"
      data-key={s.key}
    >
      <div class="cv-head">
        <strong>{STEP_WORDS[s.type] ?? s.type}</strong>
      </div>
      <div class="cv-title" title={`${title} (step ${s.key})`}>
        {title}
      </div>
      <div class="cv-counts">
        <Count name="reached" n={counts?.reached} />
        <Count name="waiting" n={counts?.waiting} tone="pending" />
        <Count name="exited" n={counts?.exited} />
        <Count name="failed" n={counts?.failed} tone="bad" />
      </div>
      {s.type === 'send_email' && (
        <div
          class="cv-mail"
          data-testid="canvas-emails"
          title="Of the emails this step sent: delivered, ever opened, ever clicked"
        >
          <span>
            <b data-count="emails">{m?.sent ?? '…'}</b> {m?.sent === 1 ? 'email' : 'emails'}
          </span>
          <span data-rate="delivered" title={`${m?.delivered ?? 0} delivered`}>
            {m ? pct(m.delivered, m.sent) : '…'} delivered
          </span>
          <span data-rate="opened" title={`${m?.opened ?? 0} opened`}>
            {m ? pct(m.opened, m.sent) : '…'} opened
          </span>
          <span data-rate="clicked" title={`${m?.clicked ?? 0} clicked`}>
            {m ? pct(m.clicked, m.sent) : '…'} clicked
          </span>
        </div>
      )}
    </div>
  );
}

const ZOOMS = [0.5, 0.65, 0.8, 1];

export function AutomationCanvas({
  steps,
  connections,
  counts,
  titleOf,
}: {
  steps: ApiStep[];
  connections: ApiConnection[];
  counts: StepCounts[] | undefined;
  titleOf: (s: ApiStep) => string;
}) {
  const [zoom, setZoom] = useState(ZOOMS.length - 1);
  const { boxes, edges, w, h } = layout(steps, connections);
  const byKey = new Map((counts ?? []).map((c) => [c.key, c]));
  const z = ZOOMS[zoom];
  const PAD = 8;
  return (
    <div class="cv">
      <div class="cv-tools">
        <button
          type="button"
          class="btn sm"
          aria-label="Zoom out"
          disabled={zoom === 0}
          onClick={() => setZoom(zoom - 1)}
        >
          −
        </button>
        <span class="small muted" aria-live="polite">
          {Math.round(z * 100)}%
        </span>
        <button
          type="button"
          class="btn sm"
          aria-label="Zoom in"
          disabled={zoom === ZOOMS.length - 1}
          onClick={() => setZoom(zoom + 1)}
        >
          +
        </button>
      </div>
      <div class="cv-scroll" data-testid="canvas" tabIndex={0} aria-label="The automation's steps with their counts">
        <div class="cv-size" style={{ width: `${(w + 2 * PAD) * z}px`, height: `${(h + 2 * PAD) * z}px` }}>
          <div
            class="cv-plane"
            style={{ width: `${w + 2 * PAD}px`, height: `${h + 2 * PAD}px`, transform: `scale(${z})` }}
          >
            <svg class="cv-lines" width={w + 2 * PAD} height={h + 2 * PAD} aria-hidden="true">
              <g transform={`translate(${PAD},${PAD})`}>
                {edges.map((e) => {
                  const x1 = e.from.x + e.from.w / 2;
                  const y1 = e.from.y + e.from.h;
                  const x2 = e.to.x + e.to.w / 2;
                  const y2 = e.to.y;
                  const mid = y1 + GAP_Y / 2;
                  return (
                    <g key={`${e.from.id}>${e.to.id}`}>
                      <path d={`M${x1},${y1} V${Math.min(mid, y2)} H${x2} V${y2}`} class="cv-edge" />
                      <path d={`M${x2 - 4},${y2 - 6} L${x2},${y2} L${x2 + 4},${y2 - 6}`} class="cv-edge" />
                      {e.label && (
                        <text x={x2 + 6} y={y2 - 8} class="cv-label">
                          {e.label}
                        </text>
                      )}
                    </g>
                  );
                })}
              </g>
            </svg>
            <div class="cv-cards" style={{ left: `${PAD}px`, top: `${PAD}px` }}>
              {boxes.map((b) =>
                b.step ? (
                  <Card key={b.id} box={b} counts={byKey.get(b.id)} title={titleOf(b.step)} />
                ) : (
                  <div
                    key={b.id}
                    class="cv-end"
                    style={{ left: `${b.x}px`, top: `${b.y}px`, width: `${b.w}px`, height: `${b.h}px` }}
                  >
                    Run ends
                  </div>
                ),
              )}
            </div>
          </div>
        </div>
      </div>
    </div>
  );
}
