// The frame of the signed-out screens: a centred card with the product name and a theme toggle.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { ThemeToggle } from './Layout';

export function AuthCard({
  title,
  children,
  sub,
}: {
  title: string;
  sub?: ComponentChildren;
  children: ComponentChildren;
}) {
  return (
    <main class="auth" id="main">
      <div class="auth-top">
        <ThemeToggle />
      </div>
      <section class="card auth-card" aria-labelledby="auth-title">
        <p class="brand-line">
          <img src="/favicon.svg" alt="" width={28} height={28} /> Mailroom
        </p>
        <h1 id="auth-title">{title}</h1>
        {sub && <p class="muted">{sub}</p>}
        {children}
      </section>
    </main>
  );
}

export function Field({ label, hint, ...input }: { label: string; hint?: string } & Record<string, any>) {
  const id = `f-${input.name}`;
  // The autofocus attribute only works on page load; these fields appear after a step (the MFA code).
  const ref = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (input.autoFocus) ref.current?.focus();
  }, []);
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input id={id} ref={ref} {...input} aria-describedby={hint ? `${id}-hint` : undefined} />
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
    </div>
  );
}

export const formData = (e: Event) =>
  Object.fromEntries(new FormData(e.currentTarget as HTMLFormElement)) as Record<string, string>;
