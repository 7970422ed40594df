// The email's settings: width, colours, font and the preheader (the hidden line mail apps show
// after the subject in the inbox list).
import { DEFAULTS, FONTS, type Settings } from './model';

type ColourKey = 'background' | 'content_background' | 'text_color' | 'link_color';
const COLOURS: [ColourKey, string][] = [
  ['background', 'Page background'],
  ['content_background', 'Content background'],
  ['text_color', 'Text'],
  ['link_color', 'Links'],
];

export function SettingsPanel({ s, onChange }: { s: Settings; onChange: (s: Settings) => void }) {
  const set = (patch: Settings) => onChange({ ...s, ...patch });
  return (
    <details class="card settings" data-testid="email-settings">
      <summary>Email settings</summary>
      <div class="field-row">
        <div class="field">
          <label for="es-width">Width (320 to 800 px)</label>
          <input
            id="es-width"
            type="number"
            min={320}
            max={800}
            value={s.width ?? DEFAULTS.width}
            onChange={(e) =>
              set({ width: Math.min(800, Math.max(320, Number(e.currentTarget.value) || DEFAULTS.width)) })
            }
          />
        </div>
        <div class="field">
          <label for="es-font">Font</label>
          <select
            id="es-font"
            value={s.font_family ?? DEFAULTS.font_family}
            onChange={(e) => set({ font_family: e.currentTarget.value })}
          >
            {FONTS.map((f) => (
              <option key={f} value={f}>
                {f.split(',')[0].replace(/'/g, '')}
              </option>
            ))}
          </select>
        </div>
      </div>
      <div class="field-row">
        {COLOURS.map(([k, l]) => (
          <div class="field" key={k}>
            <label for={`es-${k}`}>{l}</label>
            <input
              id={`es-${k}`}
              type="color"
              value={s[k] ?? DEFAULTS[k]}
              onInput={(e) => set({ [k]: e.currentTarget.value })}
            />
          </div>
        ))}
      </div>
      <div class="field">
        <label for="es-preheader">Preheader (shown after the subject in the inbox, up to 200 characters)</label>
        <input
          id="es-preheader"
          maxLength={200}
          value={s.preheader ?? ''}
          onInput={(e) => set({ preheader: e.currentTarget.value || undefined })}
        />
      </div>
    </details>
  );
}
