// The audit entry of a failed sign-in (password or second factor) of a known account. An account
// belongs to teams, not the other way round: the entry goes to each of its teams.
import { userActor, type RequestOrigin } from '../audit/actor.js';
import { auditRecord } from '../audit/record.js';
import { withTx, type Pool } from '../store/db.js';
import { membershipsOfUser } from '../store/users.js';

/** Recorded in each of the account's teams, in its own transaction (nothing else is written). */
export async function auditSignInFailed(
  pool: Pool,
  userId: string,
  who: { userId: string; email: string },
  origin: RequestOrigin,
  step: string,
): Promise<void> {
  await withTx(pool, async (tx) => {
    for (const t of await membershipsOfUser(tx, userId))
      await auditRecord(tx, t.team_id, userActor(who, origin), {
        action: 'auth.sign_in_failed',
        target: { kind: 'user', id: userId },
        after: { step },
      });
  });
}
