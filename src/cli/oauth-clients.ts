// `mailroom oauth-clients create|list|delete`: the operator registers the third-party
// integrations that may ask a team's owner or admin for access (OAuth 2.0 code grant with PKCE).
// Clients are installation-wide; each grant names its team. Usage errors (exit 2) are found before
// the database is opened; an ID that names nothing is a CommandFailure (exit 1).
import { parseArgs } from 'node:util';
import { AppError } from '../errors.js';
import { isUuid } from '../lib/ids.js';
import { OAuthClients, redirectUriProblem } from '../oauth/clients.js';
import { withDatabase } from './db.js';
import { CommandFailure, UsageError } from './errors.js';

const SUBCOMMANDS = ['create', 'list', 'delete'] as const;

export async function cmdOAuthClients(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      'redirect-uri': { type: 'string', multiple: true },
      'logo-uri': { type: 'string' },
      public: { type: 'boolean' },
    },
  });
  const [sub, id, ...extra] = positionals;
  if (!SUBCOMMANDS.includes(sub as never))
    throw new UsageError(sub ? `unknown subcommand "${sub}".` : 'say create, list or delete.');
  const stray = sub === 'delete' ? extra[0] : id;
  if (stray !== undefined) throw new UsageError(`unexpected argument "${stray}".`);
  const uris = values['redirect-uri'] ?? [];
  if (sub === 'create') {
    if (!values.name?.trim()) throw new UsageError('create needs --name NAME (shown to users on the consent page).');
    if (!uris.length) throw new UsageError('create needs at least one --redirect-uri URL.');
    for (const u of uris) {
      const problem = redirectUriProblem(u);
      if (problem) throw new UsageError(`--redirect-uri "${u}" ${problem}.`);
    }
  } else if (values.name !== undefined || uris.length || values['logo-uri'] !== undefined || values.public)
    throw new UsageError('--name, --redirect-uri, --logo-uri and --public go with create.');
  if (sub === 'delete' && !id)
    throw new UsageError('delete needs the client ID (see `npx mailroom oauth-clients list`).');
  if (sub === 'delete' && !isUuid(id))
    throw new UsageError(`a client ID is a UUID (see \`npx mailroom oauth-clients list\`), got "${id}".`);

  return withDatabase(async (db) => {
    const clients = new OAuthClients(db.pool);
    switch (sub) {
      case 'create': {
        const c = await clients
          .create({
            name: values.name,
            redirect_uris: uris,
            logo_uri: values['logo-uri'],
            public: values.public === true,
          })
          .catch((err) => {
            if (err instanceof AppError) throw new CommandFailure(err.message);
            throw err;
          });
        process.stdout.write(`client_id:     ${c.id}\n`);
        if (c.client_secret)
          process.stdout.write(`client_secret: ${c.client_secret}\n(the secret is shown only once)\n`);
        else process.stdout.write('public client: no secret; PKCE alone binds its codes\n');
        return 0;
      }
      case 'list': {
        const list = await clients.list();
        if (!list.length) process.stdout.write('No OAuth clients.\n');
        for (const c of list)
          process.stdout.write(
            `${c.id}  ${c.name}  ${c.confidential ? 'confidential' : 'public'}  ${c.redirect_uris.join(' ')}  created ${c.created_at}\n`,
          );
        return 0;
      }
      default: {
        if (!(await clients.delete(id)))
          throw new CommandFailure(`no OAuth client ${id} (see \`npx mailroom oauth-clients list\`).`);
        process.stdout.write(`Deleted ${id} (its grants and tokens with it)\n`);
        return 0;
      }
    }
  });
}
