// This process's counters in the Prometheus text exposition format (0.0.4): a few named series
// with small, bounded label sets, kept in memory and rendered on scrape. Per process, as
// Prometheus expects of a horizontally scaled service (each process is its own target). No I/O.
type Labels = Record<string, string | number>;

const MAX_SERIES = 500; // per family: a label value that explodes (a bad route label) cannot eat memory

// Label values are almost always plain (a method, a route, a status): three replaces for nothing
// on every API request (the request counter) unless one of the three characters is there.
const NEEDS_ESCAPE = /[\\"\n]/;
const escape = (v: string) =>
  NEEDS_ESCAPE.test(v) ? v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n') : v;
const labelText = (l: Labels) => {
  const keys = Object.keys(l);
  return keys.length ? `{${keys.map((k) => `${k}="${escape(String(l[k]))}"`).join(',')}}` : '';
};
const num = (v: number) => (Number.isFinite(v) ? String(v) : v > 0 ? '+Inf' : v < 0 ? '-Inf' : 'NaN');

export class Family {
  private readonly series = new Map<string, { labels: Labels; value: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
    readonly type: 'counter' | 'gauge',
  ) {}

  private slot(labels: Labels) {
    const key = labelText(labels);
    let s = this.series.get(key);
    if (!s) {
      if (this.series.size >= MAX_SERIES) return undefined;
      s = { labels: { ...labels }, value: 0 };
      this.series.set(key, s);
    }
    return s;
  }

  inc(labels: Labels = {}, n = 1): void {
    const s = this.slot(labels);
    if (s) s.value += n;
  }

  set(labels: Labels, value: number): void {
    const s = this.slot(labels);
    if (s) s.value = value;
  }

  reset(): void {
    this.series.clear();
  }

  render(): string {
    const lines = [
      `# HELP ${this.name} ${this.help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}`,
      `# TYPE ${this.name} ${this.type}`,
    ];
    for (const s of this.series.values()) lines.push(`${this.name}${labelText(s.labels)} ${num(s.value)}`);
    return lines.join('\n');
  }
}

export class Registry {
  private readonly families: Family[] = [];
  counter(name: string, help: string): Family {
    return this.add(new Family(name, help, 'counter'));
  }
  gauge(name: string, help: string): Family {
    return this.add(new Family(name, help, 'gauge'));
  }
  private add(f: Family): Family {
    this.families.push(f);
    return f;
  }
  render(): string {
    return `${this.families.map((f) => f.render()).join('\n')}\n`;
  }
}

/** The counters the modules of this process add to (one registry per process). */
export const registry = new Registry();
export const counters = {
  httpRequests: registry.counter(
    'mailroom_http_requests_total',
    'HTTP requests answered, by method, route pattern and status.',
  ),
  smtpSubmissions: registry.counter(
    'mailroom_smtp_submissions_total',
    'Messages submitted over SMTP, by result (accepted|refused) and reply code.',
  ),
  mxMessages: registry.counter(
    'mailroom_mx_messages_total',
    'Messages at the inbound MX listener, by result (accepted|refused) and reply code.',
  ),
  mxRecipients: registry.counter(
    'mailroom_mx_recipients_total',
    'Recipients offered to the inbound MX listener, by route (receive|return_path|refused).',
  ),
  deliveries: registry.counter(
    'mailroom_deliveries_total',
    'Per-recipient delivery attempts, by result (delivered|deferred|bounced).',
  ),
  dmarcAttachmentsRefused: registry.counter(
    'mailroom_dmarc_attachments_refused_total',
    'Attachments not read as DMARC reports, by reason (too_large|too_many_files|corrupt|busy|timeout|failed).',
  ),
  webhookAttempts: registry.counter(
    'mailroom_webhook_attempts_total',
    'Webhook requests, by result (success|failure).',
  ),
};
