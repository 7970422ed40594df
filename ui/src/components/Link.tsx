// An anchor for client routes: a real href (open in a new tab works), history navigation on click.
import type { ComponentChildren } from 'preact';
import { BASE, navigate } from '../router';

interface Props {
  href: string;
  children: ComponentChildren;
  class?: string;
  title?: string;
  onClick?: () => void;
  'aria-current'?: 'page' | undefined;
}

export function Link({ href, children, onClick: after, ...rest }: Props) {
  const onClick = (e: MouseEvent) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    after?.();
    navigate(href);
  };
  return (
    <a href={BASE + href} onClick={onClick} {...rest}>
      {children}
    </a>
  );
}
