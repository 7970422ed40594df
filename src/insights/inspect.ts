// Runs the rules of rules.ts: the compose stage over a message (off the request path), the delivery
// stage over the first result that was not a success (in the delivery job). Findings come out in
// table order, errors first. A rule that throws is a bug: it is skipped rather than failing a send.
import { scanHtml } from './html-scan.js';
import { RULES, type Rule } from './rules.js';
import type { DeliveryFacts, Finding, MessageFacts, Severity, Verdict } from './types.js';

const ORDER: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

const finding = (rule: Rule, v: Verdict): Finding => ({
  id: rule.id,
  severity: rule.severity,
  title: v.title ?? rule.title,
  detail: v.detail,
  fix: v.fix ?? rule.fix,
});

function run(rules: Rule[], check: (r: Rule) => Verdict | undefined): Finding[] {
  const out: Finding[] = [];
  for (const rule of rules) {
    let v: Verdict | undefined;
    try {
      v = check(rule);
    } catch {
      continue; // covered by the rule's tests; never worth a failed send
    }
    if (v) out.push(finding(rule, v));
  }
  return out.sort((a, b) => ORDER[a.severity] - ORDER[b.severity]);
}

const COMPOSE = RULES.filter((r) => r.stage === 'compose');
const DELIVERY = RULES.filter((r) => r.stage === 'delivery');

/** The findings of an email as composed. */
export function inspectMessage(m: MessageFacts): Finding[] {
  const input = { m, html: m.html ? scanHtml(m.html) : undefined };
  return run(COMPOSE, (r) => (r.stage === 'compose' ? r.check(input) : undefined));
}

/** The finding for an email's first delivery result that was not a success (at most one). */
export function inspectDelivery(f: DeliveryFacts): Finding | undefined {
  return run(DELIVERY, (r) => (r.stage === 'delivery' ? r.check(f) : undefined))[0];
}
