// Maps anything thrown while serving a request to an AppError from the one table, so that every
// response is Resend's `{statusCode, message, name}`: schema failures name the field, Fastify's
// own errors (bad JSON, body too large, wrong content type) get clear messages, and anything
// unexpected is a 500 `application_error` with no stack trace.
import { AppError } from '../errors.js';
import { isDatabaseUnavailable } from '../store/unavailable.js';

interface SchemaError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
}

const fieldOf = (instancePath: string): string => instancePath.replace(/^\//, '').replace(/\//g, '.') || 'body';

export function validationToAppError(errors: SchemaError[], part: string): AppError {
  const required = errors.find((e) => e.keyword === 'required');
  if (required) {
    const props = (required.params.requiredProperties as string[] | undefined) ?? [
      required.params.missingProperty as string,
    ];
    const prefix = required.instancePath ? `${fieldOf(required.instancePath)}.` : '';
    return new AppError('missing_required_field', `Missing \`${prefix}${props[0]}\` field.`);
  }
  const first = errors[0];
  if (!first) return new AppError('validation_error');
  const field = fieldOf(first.instancePath);
  const consts = errors
    .filter((e) => e.instancePath === first.instancePath && e.keyword === 'const')
    .map((e) => JSON.stringify(e.params.allowedValue));
  const why = consts.length ? `must be one of ${consts.join(', ')}` : (first.message ?? 'is invalid');
  if (field === 'body' && part === 'body') return new AppError('validation_error', `Invalid request body: ${why}.`);
  return new AppError(
    'validation_error',
    `Invalid \`${field}\` ${part === 'querystring' ? 'parameter' : 'field'}: ${why}.`,
  );
}

export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (isDatabaseUnavailable(err)) return new AppError('database_unavailable');
  const e = err as {
    code?: string;
    statusCode?: number;
    validation?: SchemaError[];
    validationContext?: string;
    message?: string;
  };
  if (e.validation) return validationToAppError(e.validation, e.validationContext ?? 'body');
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('payload_too_large', 'The request body is larger than this endpoint accepts.');
    case 'FST_REQ_FILE_TOO_LARGE':
      return new AppError('payload_too_large', 'The uploaded file is larger than this endpoint accepts.');
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return new AppError('bad_request', 'The request is not multipart/form-data.');
    case 'FST_FILES_LIMIT':
    case 'FST_FIELDS_LIMIT':
    case 'FST_PARTS_LIMIT':
      return new AppError('validation_error', 'The form has more files or fields than this endpoint accepts.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('bad_request', 'Unsupported Content-Type: send the body as application/json.');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('bad_request', 'The Content-Length header does not match the body.');
    case 'FST_ERR_BAD_URL':
      return new AppError('bad_request', 'The request URL is not valid (bad percent-encoding?).');
    case 'HPE_HEADER_OVERFLOW':
      return new AppError('request_header_too_large');
    case 'HPE_URI_TOO_LONG':
      return new AppError('uri_too_long');
  }
  if (err instanceof SyntaxError || e.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return new AppError('bad_request', 'The request body is not valid JSON.');
  }
  if (e.statusCode === 503) return new AppError('service_unavailable');
  if (e.statusCode === 414) return new AppError('uri_too_long');
  if (e.statusCode === 431) return new AppError('request_header_too_large');
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    return new AppError('bad_request', e.message ?? undefined);
  }
  return new AppError('application_error');
}
