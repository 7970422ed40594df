// An on/off switch (a button with role="switch"): the state is read out as checked or not, and
// the visible text beside it says what "on" means.
import type { ComponentChildren } from 'preact';

export function Switch({
  on,
  onChange,
  disabled,
  label,
  children,
}: {
  on: boolean;
  onChange: (on: boolean) => void;
  disabled?: boolean;
  label: string;
  children?: ComponentChildren;
}) {
  return (
    <button
      type="button"
      role="switch"
      class="switch"
      aria-checked={on}
      aria-label={label}
      disabled={disabled}
      onClick={() => onChange(!on)}
    >
      <span class="switch-track" aria-hidden="true">
        <span class="switch-knob" />
      </span>
      {children && <span class="switch-text">{children}</span>}
    </button>
  );
}
