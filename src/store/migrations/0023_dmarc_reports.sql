-- DMARC aggregate reports (RFC 7489 appendix C) received by the inbound MX for a team's sending
-- domains: one row per report (reporter, report id, date range, the policy it saw published) and
-- one row per <record> (source IP, count, disposition, DKIM/SPF results). A reporter sending the
-- same report twice stores it once (unique on team, domain, reporter and report id).
CREATE TABLE dmarc_reports (
  id                uuid PRIMARY KEY,
  team_id           uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  domain_id         uuid NOT NULL REFERENCES domains (id) ON DELETE CASCADE,
  received_email_id uuid,                          -- the message it came in (received_emails may be purged)
  org_name          text NOT NULL,
  org_email         text,
  report_id         text NOT NULL,
  date_begin        timestamptz NOT NULL,
  date_end          timestamptz NOT NULL,
  policy            jsonb NOT NULL,                -- policy_published: {domain, adkim, aspf, p, sp, pct}
  messages          bigint NOT NULL,               -- sum of the rows' counts
  created_at        timestamptz NOT NULL DEFAULT now(),
  UNIQUE (team_id, domain_id, org_name, report_id)
);
CREATE INDEX dmarc_reports_domain_begin ON dmarc_reports (domain_id, date_begin DESC);

CREATE TABLE dmarc_report_rows (
  report_id    uuid NOT NULL REFERENCES dmarc_reports (id) ON DELETE CASCADE,
  position     int NOT NULL,
  source_ip    text NOT NULL,
  count        bigint NOT NULL,
  disposition  text NOT NULL,                      -- none | quarantine | reject
  dkim         text NOT NULL,                      -- policy_evaluated: pass | fail
  spf          text NOT NULL,                      -- policy_evaluated: pass | fail
  header_from  text,
  auth_results jsonb NOT NULL DEFAULT '{}',        -- {dkim: [{domain, selector, result}], spf: [{domain, scope, result}]}
  PRIMARY KEY (report_id, position)
);
