// GET /domains/:id/health → Mailroom extension: live DNS checks of the domain's deliverability
// (SPF, DMARC, DKIM, MTA-STS, TLS-RPT, reverse DNS, blocklists), each {id, status, detail, fix};
// in capture mode none (status not_checked, a notice).
import { domainHealthFor } from '../../domains/health-service.js';
import { authOf, type ApiApp, type ApiDeps } from '../types.js';
import { IdParams } from './domains.schema.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.get(
    '/domains/:id/health',
    {
      schema: {
        tags: ['Domains'],
        params: IdParams,
        summary: 'Domain health (Mailroom extension)',
        description:
          'Checks, live through the configured resolver: spf_return_path, spf, dkim, dkim_ed25519, dmarc_policy, dmarc_rua, mta_sts, tls_rpt, reverse_dns, blocklist_ips, blocklist_domain. Each is {id, status: pass|warn|fail, detail, fix}; `status` is the worst of them. In capture mode nothing is read: `status` is not_checked, `checks` is empty and `notice` says why (otherwise `notice` is null).',
      },
    },
    async (req) => domainHealthFor(deps.pool, deps.config, authOf(req).team_id, req.params.id),
  );
}
