// Starts the whole app (all roles that exist) on port 0 against a fresh database, with a
// bootstrap key and the real Resend SDK pointed at it. Stops everything in close().
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Resend } from 'resend';
import { loadConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import { startApp, type RunningApp } from '../../src/app.js';
import { createLogger, type Logger } from '../../src/lib/log.js';
import { apiKeyToken } from '../../src/lib/ids.js';
import { freshDatabase, type TestDatabase } from './db.js';
import { closeAll } from './close-all.js';
import { teamCreate } from '../../src/store/teams.js';

export interface TestApp {
  app: RunningApp;
  url: string;
  key: string;
  resend: Resend;
  db: TestDatabase;
  dataDir: string;
  /** fetch against the app with the bootstrap key (or `key`) and JSON body handling */
  api(
    method: string,
    p: string,
    opts?: { body?: unknown; key?: string | null; headers?: Record<string, string>; raw?: string },
  ): Promise<{ status: number; headers: Headers; body: any }>;
  close(): Promise<void>;
}

export async function startTestApp(
  overrides: Partial<Config> = {},
  opts: { db?: TestDatabase; env?: Record<string, string>; log?: Logger } = {},
): Promise<TestApp> {
  const db = opts.db ?? (await freshDatabase());
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-data-'));
  const key = apiKeyToken();
  const config = loadConfig(
    { MAILROOM_LOG_LEVEL: 'silent', ...opts.env },
    {
      databaseUrl: db.url,
      dataDir,
      httpListen: { host: '127.0.0.1', port: 0 },
      bootstrapApiKey: key,
      roles: ['api', 'worker'],
      rateLimit: 1000,
      mxHost: 'mx.mailroom.test',
      // Processes sharing a database must share the secret (DKIM keys are sealed with it).
      secretKey: `test-secret:${db.url}`,
      // Three test files at a time, several apps each, on one PostgreSQL of 100 connections.
      databasePoolSize: 10,
      ...overrides,
    },
  );
  const app = await startApp(config, { log: opts.log ?? createLogger('silent') });
  const url = app.httpUrl!;
  const api: TestApp['api'] = async (method, p, o = {}) => {
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    const k = o.key === undefined ? key : o.key;
    if (k !== null) headers.authorization = `Bearer ${k}`;
    let body: string | undefined = o.raw;
    if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(url + p, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      /* not JSON: keep the text */
    }
    return { status: res.status, headers: res.headers, body: parsed };
  };
  return {
    app,
    url,
    key,
    db,
    dataDir,
    api,
    resend: new Resend(key, { baseUrl: url }),
    close: () =>
      closeAll(
        () => app.close(),
        () => (opts.db ? undefined : db.drop()),
        () => fs.rmSync(dataDir, { recursive: true, force: true }),
      ),
  };
}

/** A new team in the app's database and an SDK client with a full-access key of it. */
export async function otherTeamClient(t: TestApp, name: string): Promise<Resend> {
  const team = await teamCreate(t.db.pool, name);
  return new Resend((await t.app.apiKeys.create(team.id, { name })).token, { baseUrl: t.url });
}
