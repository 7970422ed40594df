// Light and dark themes: the system's preference by default, or the reader's choice (stored).
export type ThemeChoice = 'system' | 'light' | 'dark';
const KEY = 'mailroom.theme';

export function loadTheme(): ThemeChoice {
  const v = localStorage.getItem(KEY);
  return v === 'light' || v === 'dark' ? v : 'system';
}

export function applyTheme(t: ThemeChoice): void {
  if (t === 'system') document.documentElement.removeAttribute('data-theme');
  else document.documentElement.setAttribute('data-theme', t);
  if (t === 'system') localStorage.removeItem(KEY);
  else localStorage.setItem(KEY, t);
}

export const nextTheme = (t: ThemeChoice): ThemeChoice =>
  t === 'system' ? 'light' : t === 'light' ? 'dark' : 'system';
