// Personalization speed: recipients rendered per second on one core for a 10 KB HTML body with
// 47 tags (one in most paragraphs), against a naive renderer (one regex replace over the whole body per recipient) in the
// same run. Run: node --import tsx bench/personalize/run.ts [recipients]
import { compile, render } from '../../src/render/personalize.js';

const N = Number(process.argv[2] ?? 200_000);
const para =
  '<p style="margin:0 0 12px;font:15px/1.5 Helvetica,Arial,sans-serif;color:#333">Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua.</p>\n';
const tags = [
  '{{{contact.first_name|there}}}',
  '{{{contact.last_name}}}',
  '{{{contact.email}}}',
  '{{{contact.plan|free}}}',
  '{{{contact.company}}}',
  '{{{FIRST_NAME|friend}}}',
];
let body = '<!doctype html><html><body><h1>Hello {{{contact.first_name|there}}}</h1>\n';
for (let i = 0; body.length < 10_000; i++) body += para.replace('Lorem', tags[i % tags.length]);
body += '<p><a href="{{{RESEND_UNSUBSCRIBE_URL}}}">Unsubscribe</a></p></body></html>';
const slots = (body.match(/\{\{\{/g) ?? []).length;

const people = Array.from({ length: 1000 }, (_, i) => ({
  email: `person${i}@example.org`,
  first_name: i % 7 ? `Name${i}` : null,
  last_name: `Last & ${i}`,
  properties: { plan: i % 3 ? 'pro' : null, company: `Acme <${i}>` },
}));
const fallbacks = { company: 'your company' };

function naive(template: string, p: (typeof people)[number]): string {
  const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return template.replace(/\{\{\{\s*([\w.]+)\s*(?:\|([^}]*))?\}\}\}/g, (m, name: string, fb?: string) => {
    const key = name.replace(/^contact\./, '').replace(/^FIRST_NAME$/, 'first_name');
    const v =
      (p as Record<string, unknown>)[key] ??
      p.properties[key as 'plan'] ??
      fb ??
      (fallbacks as Record<string, string>)[key];
    return name === 'RESEND_UNSUBSCRIBE_URL' ? m : esc(v === null || v === undefined ? '' : String(v));
  });
}

function measure(label: string, fn: (i: number) => string) {
  let bytes = 0;
  for (let i = 0; i < 2000; i++) bytes += fn(i).length; // warm up
  bytes = 0;
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < N; i++) {
    const out = fn(i);
    bytes += out.length;
    if (out.charCodeAt(out.length - 1) === 0) throw new Error('unreachable'); // keep the string alive and read
  }
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const cpu = process.cpuUsage(cpu0);
  const cpuUs = (cpu.user + cpu.system) / N;
  console.log(
    `${label.padEnd(10)} ${N} recipients in ${ms.toFixed(0)} ms = ${Math.round(N / (ms / 1000)).toLocaleString('en')}/s, ${cpuUs.toFixed(2)} us CPU each, ${(bytes / N / 1024).toFixed(1)} KB each`,
  );
  return N / (ms / 1000);
}

console.log(`body ${(body.length / 1024).toFixed(1)} KB, ${slots} tags; node ${process.version}`);
const compiled = compile(body, { html: true });
const ours = measure('compiled', (i) =>
  render(compiled, {
    contact: people[i % people.length],
    propertyFallbacks: fallbacks,
    unsubscribeUrl: `https://m.example/u/${i}`,
  }),
);
const peer = measure('naive', (i) => naive(body, people[i % people.length]));
console.log(`ratio compiled/naive: ${(ours / peer).toFixed(1)}x`);
