// Walks each team's audit chain from its first entry: seq must run 1, 2, 3 ... with no gap, each
// prev_hash must be the previous entry's hash, each hash must match the entry's fields, and the
// team's head must point at the last entry. The first problem per team is reported.
import type { Queryable } from '../store/db.js';
import { auditChainBatch, auditHead, auditTeams } from '../store/audit-log.js';
import { entryHash } from './chain.js';

export interface ChainReport {
  team_id: string;
  entries: number;
  /** null when intact */
  problem: string | null;
}

const BATCH = 1000;

export async function verifyTeamChain(db: Queryable, teamId: string): Promise<ChainReport> {
  let seq = 0;
  let hash = '';
  const bad = (problem: string): ChainReport => ({ team_id: teamId, entries: seq, problem });
  for (;;) {
    const rows = await auditChainBatch(db, teamId, seq, BATCH);
    for (const r of rows) {
      if (r.seq !== seq + 1) return bad(`entry seq ${seq + 1} is missing (next present: seq ${r.seq}, id ${r.id})`);
      if (r.prev_hash !== hash) return bad(`entry seq ${r.seq} (id ${r.id}) does not follow entry seq ${seq}`);
      const { hash: stored, prev_hash: _p, ...fields } = r;
      if (entryHash(hash, fields) !== stored) return bad(`entry seq ${r.seq} (id ${r.id}) was changed`);
      seq = r.seq;
      hash = stored;
    }
    if (rows.length < BATCH) break;
  }
  const head = await auditHead(db, teamId);
  if (head && head.seq > seq) return bad(`entries seq ${seq + 1} to ${head.seq} are missing (the newest)`);
  if (head && head.seq === seq && head.hash !== hash) return bad(`entry seq ${seq} does not match the chain head`);
  return { team_id: teamId, entries: seq, problem: null };
}

export async function verifyChains(db: Queryable, teamId?: string): Promise<ChainReport[]> {
  const teams = teamId ? [teamId] : await auditTeams(db);
  const out: ChainReport[] = [];
  for (const t of teams) out.push(await verifyTeamChain(db, t));
  return out;
}
