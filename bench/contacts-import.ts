// Contact import of an N-row CSV (email, first_name, last_name, two properties) through the real
// HTTP endpoint and job, in a separate Mailroom process (api + worker, compiled build); peer in the
// same run: PostgreSQL's own `\copy ... FROM` of the same file into a bare table (psql).
// Usage: npm run build && node --import tsx bench/contacts-import.ts [rows=500000]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { api, cpuSeconds, freshDb, KEY, loadAverage, machine, postgresCpuSeconds, startService } from './lib.js';

const rows = Number(process.argv[2] ?? 500_000);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function writeCsv(file: string): number {
  const fd = fs.openSync(file, 'w');
  const plans = ['free', 'pro', 'team', 'enterprise'];
  let chunk = 'email,first_name,last_name,plan,score\n';
  for (let i = 0; i < rows; i++) {
    chunk += `user${i}@example${i % 97}.org,First${i},Last ${i % 1000},${plans[i % 4]},${(i % 1000) / 10}\n`;
    if (chunk.length > 1 << 20) {
      fs.writeSync(fd, chunk);
      chunk = '';
    }
  }
  fs.writeSync(fd, chunk);
  fs.closeSync(fd);
  return fs.statSync(file).size;
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-import-bench-'));
  const file = path.join(dir, 'contacts.csv');
  const bytes = writeCsv(file);
  const db = await freshDb();
  const svc = await startService({
    MAILROOM_DATABASE_URL: db.url,
    MAILROOM_BOOTSTRAP_API_KEY: KEY,
    MAILROOM_ROLES: 'api,worker',
    MAILROOM_RATE_LIMIT: '100000',
  });
  try {
    await api(svc.url, KEY, 'POST', '/contact-properties', { key: 'plan', type: 'string' });
    await api(svc.url, KEY, 'POST', '/contact-properties', { key: 'score', type: 'number' });
    const load = loadAverage();
    const cpu0 = cpuSeconds(svc.proc.pid!);
    const pg0 = postgresCpuSeconds();
    const t0 = performance.now();
    const form = new FormData();
    form.append('file', await fs.openAsBlob(file, { type: 'text/csv' }), 'contacts.csv');
    const res = await fetch(`${svc.url}/contacts/imports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}` },
      body: form,
    });
    const created = (await res.json()) as { id: string };
    if (res.status !== 201) throw new Error(`upload: ${res.status} ${JSON.stringify(created)}`);
    const uploadS = (performance.now() - t0) / 1000;
    let imp: any;
    let stagedS: number | undefined; // every row read and staged: the merge transaction runs from here
    for (let i = 0; i < 6_000; i++) {
      // at most ~10 minutes
      imp = await api(svc.url, KEY, 'GET', `/contacts/imports/${created.id}`);
      if (stagedS === undefined && imp.counts.total >= rows) stagedS = (performance.now() - t0) / 1000;
      if (imp.status === 'completed' || imp.status === 'failed') break;
      await sleep(100);
    }
    const totalS = (performance.now() - t0) / 1000;
    // A rate over an import that failed, stopped short or refused rows measures nothing.
    if (imp.status !== 'completed' || imp.counts.failed > 0 || imp.counts.total !== rows) {
      throw new Error(
        `the import did not take every row: status ${imp.status}, counts ${JSON.stringify(imp.counts)} of ${rows} rows, error ${JSON.stringify(imp.error)}`,
      );
    }
    const cpu = cpuSeconds(svc.proc.pid!) - cpu0;
    const pgCpu = postgresCpuSeconds() - pg0;
    const rss = svc.peakRssMb();

    // Peer: the same file copied by PostgreSQL itself into a bare table (no checks, no indexes).
    execFileSync('psql', [
      db.url,
      '-qc',
      'CREATE TABLE copy_peer (email text, first_name text, last_name text, plan text, score numeric)',
    ]);
    const p0 = performance.now();
    execFileSync('psql', [db.url, '-qc', `\\copy copy_peer FROM '${file}' WITH (FORMAT csv, HEADER true)`]);
    const copyS = (performance.now() - p0) / 1000;

    const mailroomRate = rows / totalS;
    const copyRate = rows / copyS;
    const out = {
      rows,
      file_mb: +(bytes / 2 ** 20).toFixed(1),
      status: imp.status,
      counts: imp.counts,
      error: imp.error,
      upload_s: +uploadS.toFixed(2),
      parsed_and_staged_at_s: stagedS === undefined ? null : +stagedS.toFixed(2),
      total_s: +totalS.toFixed(2),
      mailroom_rows_per_s: Math.round(mailroomRate),
      mailroom_cpu_s: +cpu.toFixed(1),
      postgres_cpu_s: +pgCpu.toFixed(1),
      peak_rss_mb: rss,
      copy_s: +copyS.toFixed(2),
      copy_rows_per_s: Math.round(copyRate),
      ratio_copy_over_mailroom: +(copyRate / mailroomRate).toFixed(1),
      load_before: load,
      machine: machine(),
    };
    console.log(JSON.stringify(out, null, 2));
  } finally {
    await svc.stop();
    await db.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
