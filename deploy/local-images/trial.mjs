// Part of trial.sh: a recording SMTP server (the relay the compose file's workers deliver to),
// and emails sent through the API with the Resend SDK, each waited for until the recorder has it.
//   node trial.mjs URL KEY DOMAIN LISTEN_HOST:PORT COUNT
// Uses the project's development dependencies (resend, smtp-server): run after npm ci.
import { Resend } from 'resend';
import { SMTPServer } from 'smtp-server';

const [url, key, domain, listen, count = '3'] = process.argv.slice(2);
const [host, port] = listen.split(':');
const received = new Map();
const server = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  onData(stream, session, done) {
    const chunks = [];
    stream.on('data', (c) => chunks.push(c));
    stream.on('end', () => {
      const body = Buffer.concat(chunks).toString('latin1');
      received.set(/^Subject: (.*)$/m.exec(body)?.[1], { dkim: /^DKIM-Signature:/m.test(body), peer: session.remoteAddress });
      done();
    });
  },
});
await new Promise((resolve) => server.listen(Number(port), host, resolve));

const resend = new Resend(key, { baseUrl: url });
const run = Date.now().toString(36);
const subjects = [];
for (let i = 0; i < Number(count); i++) {
  const subject = `trial ${run} ${i}`;
  const { error } = await resend.emails.send({ from: `Trial <hello@${domain}>`, to: ['you@example.org'], subject, text: 'trial' });
  if (error) throw new Error(`send: ${JSON.stringify(error)}`);
  subjects.push(subject);
  await new Promise((r) => setTimeout(r, 150)); // under the default 10 requests/s
}
const t0 = Date.now();
while (subjects.some((s) => !received.has(s)) && Date.now() - t0 < 60_000) await new Promise((r) => setTimeout(r, 200));
const got = subjects.filter((s) => received.has(s)).map((s) => received.get(s));
server.close();
const peers = [...new Set(got.map((g) => g.peer))];
console.log(`sent ${subjects.length}, received ${got.length} (${got.filter((g) => g.dkim).length} DKIM-signed) from ${peers.join(', ')}`);
process.exit(got.length === subjects.length ? 0 : 1);
