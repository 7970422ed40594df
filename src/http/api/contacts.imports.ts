// /contacts/imports[/:id]: contact imports are not built yet (the audiences issue brings them).
// Registered so that the SDK's resend.contacts.imports.* get an honest answer instead of being
// caught by /contacts/:id ("Contact not found").
import { AppError } from '../../errors.js';
import type { ApiApp, ApiDeps } from '../types.js';
import { tags } from './contacts.schema.js';

const notYet = () => { throw new AppError('not_found', 'Contact imports are not available on this server yet.'); };

export default function register(app: ApiApp, _deps: ApiDeps): void {
  app.get('/contacts/imports', { schema: { tags, summary: 'List contact imports (not available yet)' } }, notYet);
  app.post('/contacts/imports', { schema: { tags, summary: 'Import contacts (not available yet)' } }, notYet);
  app.get('/contacts/imports/:id', { schema: { tags, summary: 'Retrieve a contact import (not available yet)' } }, notYet);
}
