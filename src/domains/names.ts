// Domain-name and subdomain-label validation for sending domains (IDN accepted, stored as ASCII).
import { domainToASCII } from 'node:url';
import { AppError } from '../errors.js';

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** Returns the ASCII (punycode) lowercase form of a domain name, or throws a 422. */
export function normalizeDomainName(input: string): string {
  const raw = input.trim().replace(/\.$/, '');
  const bad = (why: string) => new AppError('validation_error', `Invalid \`name\` field: ${why}.`);
  if (!raw) throw bad('the domain name is empty');
  if (/[\s\u0000-\u001f\u007f]/.test(raw)) throw bad('the domain name contains whitespace or control characters');
  if (raw.startsWith('[') || /^[\d.]+$/.test(raw) || raw.includes(':')) throw bad('an IP address is not a domain name');
  const ascii = domainToASCII(raw.toLowerCase());
  if (!ascii) throw bad(`"${raw}" is not a valid domain name`);
  if (ascii.length > 253) throw bad('the domain name is longer than 253 characters');
  const labels = ascii.split('.');
  if (labels.length < 2) throw bad('the domain name must contain a dot (e.g. example.com)');
  for (const l of labels)
    if (!LABEL.test(l)) throw bad(`"${l}" is not a valid label (letters, digits and inner hyphens, 1-63 characters)`);
  if (/^\d+$/.test(labels[labels.length - 1])) throw bad('the top-level domain cannot be numeric');
  return ascii;
}

/** A relative host such as `send` or `links` (one or more labels). */
export function normalizeSubdomain(field: string, input: string): string {
  const v = input.trim().toLowerCase().replace(/\.$/, '');
  const labels = v.split('.');
  if (!v || v.length > 200 || labels.some((l) => !LABEL.test(l))) {
    throw new AppError(
      'validation_error',
      `Invalid \`${field}\` field: use letters, digits and hyphens, such as "send".`,
    );
  }
  return v;
}
