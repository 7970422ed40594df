// What the whole SPA knows about the visitor: the server's /dashboard-api/state (signed in or not,
// setup needed, MFA pending, team, providers), shared through a context with a reload function.
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';

export interface Team {
  id: string;
  name: string;
  role: 'owner' | 'admin' | 'member';
  require_mfa?: boolean;
}
export interface DashState {
  setup_needed: boolean;
  signed_in: boolean;
  mfa_pending: boolean;
  mfa_setup_required?: boolean;
  oauth: string[];
  password_reset: boolean;
  delivery_mode: 'mx' | 'relay' | 'capture';
  csrf?: string;
  user?: { id: string; email: string; name: string; totp_enabled: boolean };
  team?: Team;
  teams?: Team[];
}

export const SessionContext = createContext<{ state: DashState; reload: () => Promise<void> }>(null as never);
export const useSession = () => useContext(SessionContext);
export const canEdit = (s: DashState) => s.team?.role === 'owner' || s.team?.role === 'admin';
