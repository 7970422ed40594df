// The audit log's vocabulary: every action it records, by family (issue 29). GET /audit-log
// accepts these (or `family.*`) as its `action` filter; an action not listed here cannot be recorded.
export const AUDIT_ACTIONS = [
  'api_key.created',
  'api_key.updated',
  'api_key.revoked',
  'domain.created',
  'domain.updated',
  'domain.deleted',
  'domain.verified',
  'domain.claimed',
  'webhook.created',
  'webhook.updated',
  'webhook.deleted',
  'webhook.secret_rotated',
  'member.invited',
  'member.removed',
  'member.role_changed',
  'member.sessions_revoked',
  'team.security_changed',
  'mfa.enrolled',
  'mfa.removed',
  'auth.signed_in',
  'auth.sign_in_failed',
  'oauth_grant.given',
  'oauth_grant.revoked',
  'broadcast.sent',
  'broadcast.paused',
  'broadcast.canceled',
  'automation.enabled',
  'automation.stopped',
  'privacy.erasure_requested',
  'privacy.export_requested',
  'privacy.retention_changed',
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export const AUDIT_TARGET_KINDS = [
  'api_key',
  'domain',
  'webhook',
  'user',
  'invite',
  'team',
  'oauth_grant',
  'oauth_client',
  'broadcast',
  'automation',
  'privacy_request',
] as const;

export type AuditTargetKind = (typeof AUDIT_TARGET_KINDS)[number];

export const AUDIT_ACTOR_KINDS = ['user', 'api_key', 'oauth', 'system'] as const;
export type AuditActorKind = (typeof AUDIT_ACTOR_KINDS)[number];
