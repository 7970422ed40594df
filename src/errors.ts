// THE error table: every failure a client can see, declared once with its Resend `name`, HTTP
// status, default message and the SMTP reply (code + enhanced code) used by the SMTP listeners.
// Only the 21 "classic" Resend names are emitted (resend-compat.md 3.2): SDKs parse `name` into
// closed enums. Modules throw `new AppError('not_found', 'Domain not found')`; nothing else.

export interface ErrorSpec {
  name: string;
  status: number;
  message: string;
  smtp: { code: number; enhanced: string };
}

const e = (name: string, status: number, message: string, code: number, enhanced: string): ErrorSpec => ({
  name,
  status,
  message,
  smtp: { code, enhanced },
});

export const ERRORS = {
  invalid_idempotency_key: e(
    'invalid_idempotency_key',
    400,
    'Idempotency keys, if present, must have between 1 and 256 characters.',
    501,
    '5.5.4',
  ),
  bad_request: e('validation_error', 400, 'An error was found with one or more fields in the request.', 501, '5.5.4'),
  validation_error: e(
    'validation_error',
    422,
    'An error was found with one or more fields in the request.',
    550,
    '5.6.0',
  ),
  forbidden: e('validation_error', 403, 'The request is not allowed.', 550, '5.7.1'),
  domain_not_verified: e(
    'validation_error',
    403,
    'The domain is not verified. Please, add and verify your domain.',
    550,
    '5.7.1',
  ),
  // The reputation guard paused the sending domain (list mail always; API/SMTP sends only with
  // MAILROOM_REPUTATION_PAUSE_TRANSACTIONAL). Temporary in SMTP terms: a person lifts it.
  domain_paused: e('validation_error', 403, 'The sending domain is paused by the reputation guard.', 451, '4.7.1'),
  payload_too_large: e('validation_error', 413, 'The request body is too large.', 552, '5.3.4'),
  invalid_recipient: e('validation_error', 422, 'Invalid recipient address.', 553, '5.1.3'),
  missing_api_key: e('missing_api_key', 401, 'Missing API key in the authorization header.', 530, '5.7.0'),
  not_signed_in: e('missing_api_key', 401, 'Sign in to continue.', 530, '5.7.0'), // dashboard session missing or expired
  invalid_credentials: e('validation_error', 401, 'The email or password is incorrect.', 535, '5.7.8'),
  restricted_api_key: e('restricted_api_key', 401, 'This API key is restricted to only send emails.', 550, '5.7.1'),
  invalid_api_key: e('invalid_api_key', 403, 'API key is invalid.', 535, '5.7.8'),
  not_found: e('not_found', 404, 'The requested endpoint does not exist.', 550, '5.1.1'),
  method_not_allowed: e('method_not_allowed', 405, 'Method is not allowed for the requested path.', 502, '5.5.1'),
  invalid_idempotent_request: e(
    'invalid_idempotent_request',
    409,
    "This idempotency key has been used with this HTTP method and endpoint within the last 24 hours, but the request body was modified and doesn't match the original request.",
    550,
    '5.7.0',
  ),
  concurrent_idempotent_requests: e(
    'concurrent_idempotent_requests',
    409,
    'There is another request in progress with the same idempotency key.',
    451,
    '4.7.0',
  ),
  invalid_attachment: e('invalid_attachment', 422, 'Attachment must have either a `content` or `path`.', 550, '5.6.0'),
  invalid_from_address: e(
    'invalid_from_address',
    422,
    'Invalid `from` field. The email address needs to follow the `email@example.com` or `Name <email@example.com>` format.',
    553,
    '5.1.7',
  ),
  invalid_access: e('invalid_access', 422, 'Access must be "full_access" | "sending_access".', 550, '5.7.0'),
  invalid_parameter: e('invalid_parameter', 422, 'The parameter must be a valid UUID.', 501, '5.5.4'),
  invalid_region: e(
    'invalid_region',
    422,
    'Region must be "us-east-1" | "eu-west-1" | "sa-east-1" | "ap-northeast-1".',
    550,
    '5.7.0',
  ),
  missing_required_field: e(
    'missing_required_field',
    422,
    'The request body is missing one or more required fields.',
    501,
    '5.5.4',
  ),
  daily_quota_exceeded: e(
    'daily_quota_exceeded',
    429,
    'You have exceeded your daily email sending quota.',
    452,
    '4.3.1',
  ),
  monthly_quota_exceeded: e(
    'monthly_quota_exceeded',
    429,
    'You have exceeded your monthly email sending quota.',
    452,
    '4.3.1',
  ),
  rate_limit_exceeded: e(
    'rate_limit_exceeded',
    429,
    'Too many requests. Please limit the number of requests per second. Or contact support to increase rate limit.',
    451,
    '4.7.1',
  ),
  security_error: e('security_error', 451, 'We may have found a security issue with the request.', 550, '5.7.1'),
  // Inbound MX refusals (SMTP only; the HTTP side is never used for them).
  relay_denied: e(
    'validation_error',
    403,
    'Relay access denied: this server does not accept mail for that domain.',
    550,
    '5.7.1',
  ),
  message_malformed: e('validation_error', 422, 'The message is not a valid RFC 5322 message.', 550, '5.6.0'),
  data_timeout: e(
    'validation_error',
    408,
    'The message took too long to arrive; closing the connection.',
    421,
    '4.4.2',
  ),
  too_many_connections: e(
    'rate_limit_exceeded',
    429,
    'Too many connections from your address, try again later.',
    421,
    '4.7.0',
  ),
  application_error: e('application_error', 500, 'An unexpected error occurred.', 451, '4.3.0'),
  service_unavailable: e(
    'application_error',
    503,
    'The service is shutting down or not ready. Please retry.',
    421,
    '4.3.2',
  ),
  database_unavailable: e('application_error', 503, 'The database is unavailable; retry shortly.', 451, '4.3.0'),
  request_header_too_large: e('validation_error', 431, 'The request headers are too large.', 501, '5.5.4'),
  uri_too_long: e('validation_error', 414, 'The request URL is too long.', 501, '5.5.4'),
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERRORS;

/** The Resend error names this table can emit: a test checks they are all in the SDKs' list. */
export const EMITTED_NAMES = [...new Set(Object.values(ERRORS).map((s) => s.name))];

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly spec: ErrorSpec;
  constructor(code: ErrorCode, message?: string) {
    super(message ?? ERRORS[code].message);
    this.code = code;
    this.spec = ERRORS[code];
  }
  get status(): number {
    return this.spec.status;
  }
  /** Resend's body: key order statusCode, message, name (as seen on the wire). */
  toBody(): { statusCode: number; message: string; name: string } {
    return { statusCode: this.spec.status, message: this.message, name: this.spec.name };
  }
  /** The SMTP reply for this error, e.g. "550 5.7.1 The domain is not verified." */
  toSmtp(): { code: number; message: string } {
    return {
      code: this.spec.smtp.code,
      message: `${this.spec.smtp.enhanced} ${this.message.replace(/[\r\n]+/g, ' ')}`,
    };
  }
}

export const missingField = (field: string) => new AppError('missing_required_field', `Missing \`${field}\` field.`);
export const invalidField = (field: string, why: string) =>
  new AppError('validation_error', `Invalid \`${field}\` field: ${why}`);
export const notFound = (what: string) => new AppError('not_found', `${what} not found`);
