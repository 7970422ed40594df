// Desktop, phone and dark previews of the rendered email, each in a sandboxed frame like every
// email preview of the dashboard (no scripts, no same-origin access, a CSP that blocks remote
// content until asked). Dark: the frame's color-scheme is dark and <body> gets the class `mr-dark`,
// whose rules the renderer writes next to its prefers-color-scheme block; an email without them
// (none of ours) is shown inverted the way some mail apps force dark mode.
import { useState } from 'preact/hooks';

export type Mode = 'desktop' | 'phone' | 'dark';
const MODES: [Mode, string][] = [
  ['desktop', 'Desktop'],
  ['phone', 'Phone'],
  ['dark', 'Dark'],
];
const FORCED_DARK =
  '<style>html{filter:invert(1) hue-rotate(180deg);background:#fff}img{filter:invert(1) hue-rotate(180deg)}</style>';

export function frameDoc(html: string, mode: Mode, remote: boolean): string {
  const csp = `default-src 'none'; style-src 'unsafe-inline'; font-src data:; img-src data: cid:${remote ? ' https: http:' : ''}`;
  const head = `<meta http-equiv="Content-Security-Policy" content="${csp}"><base target="_blank"><meta name="referrer" content="no-referrer">${
    mode === 'dark' && !html.includes('mr-dark') ? FORCED_DARK : ''
  }`;
  let doc = /<head[^>]*>/i.test(html)
    ? html.replace(/<head[^>]*>/i, (m) => m + head)
    : `<!doctype html><html><head>${head}</head><body>${html}</body></html>`;
  if (mode === 'dark')
    doc = doc.replace(/<body([^>]*)>/i, (_m, attrs: string) =>
      /\bclass\s*=\s*"/i.test(attrs)
        ? `<body${attrs.replace(/\bclass\s*=\s*"/i, 'class="mr-dark ')}>`
        : `<body${attrs} class="mr-dark">`,
    );
  return doc;
}

export function Previews({ html, width, title, busy }: { html: string; width: number; title: string; busy: boolean }) {
  const [mode, setMode] = useState<Mode>('desktop');
  const [remote, setRemote] = useState(false);
  const frameWidth = mode === 'phone' ? 375 : Math.max(640, width + 40);
  return (
    <section class="card email-previews" data-testid="email-previews">
      <div class="row spread">
        <h3>Preview{busy ? ' (updating…)' : ''}</h3>
        <div class="segmented" role="group" aria-label="Preview as">
          {MODES.map(([m, l]) => (
            <button key={m} type="button" class="btn sm" aria-pressed={mode === m} onClick={() => setMode(m)}>
              {l}
            </button>
          ))}
        </div>
      </div>
      <label class="check small">
        <input type="checkbox" checked={remote} onChange={(e) => setRemote(e.currentTarget.checked)} />
        Show remote images (blocked so that nobody learns you previewed this)
      </label>
      <div class={`device-scroll ${mode}`}>
        <iframe
          key={`${mode}|${remote}`}
          title={`${MODES.find((m) => m[0] === mode)![1]} preview of ${title}`}
          data-mode={mode}
          sandbox="allow-popups allow-popups-to-escape-sandbox"
          referrerpolicy="no-referrer"
          srcdoc={frameDoc(html, mode, remote)}
          style={{ width: `${frameWidth}px`, colorScheme: mode === 'dark' ? 'dark' : 'light' }}
        />
      </div>
    </section>
  );
}
