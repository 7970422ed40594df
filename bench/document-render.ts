// The visual editor's documents rendered by MJML (issue 30): wall time and CPU per render for three
// documents, in the worker thread the API uses (render/mjml.ts) and, as the peer in the same run,
// on the calling thread (render/mjml-render.ts), interleaved. Also the worker's cold start and how
// long the event loop stayed busy while the worker rendered. CPU is process.cpuUsage(): every
// thread of this process, so the worker's share is counted.
// Run (after `npm run build`): node bench/document-render.ts is not possible on Node 20 (no type
// stripping): node --import tsx bench/document-render.ts [rounds], or against dist with
// MAILROOM_BENCH_DIST=1 (the worker then loads compiled .js, as in production).
import { performance } from 'node:perf_hooks';
import type { EmailDocument } from '../src/render/document-types.js';

const ROUNDS = Number(process.argv[2] ?? 9);
const base = process.env.MAILROOM_BENCH_DIST ? '../dist' : '../src';
const ext = process.env.MAILROOM_BENCH_DIST ? '.js' : '.ts';
const { renderDocument } = await import(`${base}/render/mjml${ext}`);
const { renderDocumentHere } = await import(`${base}/render/mjml-render${ext}`);
const { checkDocument } = await import(`${base}/templates/document${ext}`);

const docs: [string, EmailDocument][] = [
  [
    'small: heading, text, button, footer',
    checkDocument({
      version: 1,
      blocks: [
        { type: 'heading', id: 'h', text: 'Hello {{{contact.first_name|there}}}', level: 1 },
        { type: 'text', id: 't', html: '<p>Some text with <a href="https://x.test">a link</a>.</p>' },
        { type: 'button', id: 'b', text: 'Go', href: 'https://x.test' },
        { type: 'footer', id: 'f', html: '<p>Acme</p>', unsubscribe: true },
      ],
    }).document,
  ],
  [
    '200 blocks: headings and paragraphs',
    checkDocument({
      version: 1,
      blocks: Array.from({ length: 200 }, (_, i) =>
        i % 2
          ? {
              type: 'text',
              id: `t${i}`,
              html: `<p>Paragraph ${i} for {{{contact.first_name|you}}} <a href="https://x.test/${i}">link</a></p>`,
            }
          : { type: 'heading', id: `h${i}`, text: `Heading ${i}`, level: 2 },
      ),
    }).document,
  ],
  [
    '66 two-column sections (198 blocks)',
    checkDocument({
      version: 1,
      blocks: Array.from({ length: 66 }, (_, i) => ({
        type: 'columns',
        id: `c${i}`,
        columns: [
          { blocks: [{ type: 'text', id: `a${i}`, html: '<p>left</p>' }] },
          { blocks: [{ type: 'image', id: `i${i}`, src: 'https://x.test/a.png', alt: 'x' }] },
        ],
      })),
    }).document,
  ],
];

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];

let t = performance.now();
await renderDocument(docs[0][1]);
console.log(`worker cold start with its first render: ${(performance.now() - t).toFixed(0)} ms`);
await renderDocumentHere(docs[0][1]); // loads MJML here too, outside the measurement

for (const [name, d] of docs) {
  const wall = { worker: [] as number[], here: [] as number[] };
  const cpu = { worker: [] as number[], here: [] as number[] };
  let loopBusy = 0;
  let bytes = 0;
  for (let r = 0; r < ROUNDS; r++) {
    for (const where of r % 2 ? (['here', 'worker'] as const) : (['worker', 'here'] as const)) {
      const c0 = cpuMs();
      t = performance.now();
      if (where === 'worker') {
        // the loop's longest gap between 1 ms timers while the worker renders
        let last = performance.now();
        const timer = setInterval(() => {
          const now = performance.now();
          loopBusy = Math.max(loopBusy, now - last);
          last = now;
        }, 1);
        bytes = (await renderDocument(d)).html.length;
        clearInterval(timer);
      } else await renderDocumentHere(d);
      wall[where].push(performance.now() - t);
      cpu[where].push(cpuMs() - c0);
    }
  }
  console.log(
    `${name} (${bytes} bytes of html): worker median ${median(wall.worker).toFixed(0)} ms wall / ${median(cpu.worker).toFixed(0)} ms CPU; ` +
      `here ${median(wall.here).toFixed(0)} ms / ${median(cpu.here).toFixed(0)} ms; longest loop gap during worker renders ${loopBusy.toFixed(0)} ms`,
  );
}
process.exit(0);
