// The dashboard's one way to the server: same-origin fetch with the session cookie, the CSRF
// header on state-changing calls, Resend-shaped errors turned into ApiError, and a signal when
// the session is gone (401) so the shell can show the sign-in screen. JSON bodies, or a
// multipart form for uploads.
export class ApiError extends Error {
  /** `serverMessage`: the API's own words (a 422's path included), for pages that place the error themselves. */
  constructor(
    readonly status: number,
    message: string,
    readonly name: string,
    readonly serverMessage?: string,
  ) {
    super(message);
  }
}

let csrf = '';
export const setCsrf = (token: string | undefined) => {
  csrf = token ?? '';
};

export const SIGNED_OUT_EVENT = 'mailroom:signed-out';

const fieldName = (f: string) => f.replace(/[_.]/g, ' ').replace(/\[(\d+)\]/g, ' $1');

/**
 * The API's messages are written for programmers ("Invalid `name` field: ..."); the dashboard
 * shows them in plain words ("Check the name: ..."). Anything else passes unchanged.
 */
export function plainMessage(message: string): string {
  return message
    .replace(/^Invalid `([^`]+)` field:\s*/, (_m, f: string) => `Check the ${fieldName(f)}: `)
    .replace(/^Missing `([^`]+)` field\.?$/, (_m, f: string) => `The ${fieldName(f)} is required.`)
    .replace(/^Invalid `([^`]+)` parameter:\s*/, (_m, f: string) => `Check the ${fieldName(f)}: `)
    .replace(/`([^`]+)`/g, '“$1”');
}

export async function api<T = any>(method: string, path: string, body?: unknown): Promise<T> {
  return send<T>(
    method,
    path,
    body === undefined ? undefined : JSON.stringify(body),
    body === undefined ? undefined : 'application/json',
  );
}

/**
 * A multipart/form-data POST (a file upload): the browser writes the boundary into the
 * content-type itself. The CSRF header goes along as on every other state-changing call.
 */
export const upload = <T = any>(path: string, form: FormData) => send<T>('POST', path, form);

async function send<T>(method: string, path: string, body: BodyInit | undefined, contentType?: string): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (method !== 'GET') headers['x-csrf-token'] = csrf;
  if (contentType) headers['content-type'] = contentType;
  const res = await fetch(path, { method, headers, body, credentials: 'same-origin' });
  const text = await res.text();
  let data: any = text;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    /* plain text (raw MIME) */
  }
  if (!res.ok) {
    if (res.status === 401 && !path.startsWith('/dashboard-api/login') && !path.startsWith('/dashboard-api/setup'))
      window.dispatchEvent(new Event(SIGNED_OUT_EVENT));
    throw new ApiError(
      res.status,
      data?.message ? plainMessage(String(data.message)) : `Request failed (${res.status})`,
      data?.name ?? 'error',
      data?.message ? String(data.message) : undefined,
    );
  }
  if (data && typeof data === 'object' && typeof data.csrf === 'string') setCsrf(data.csrf);
  return data as T;
}

export const get = <T = any>(path: string) => api<T>('GET', path);
export const post = <T = any>(path: string, body: unknown = {}) => api<T>('POST', path, body);
export const patch = <T = any>(path: string, body: unknown) => api<T>('PATCH', path, body);
export const del = <T = any>(path: string) => api<T>('DELETE', path);

export interface List<T> {
  object: 'list';
  has_more: boolean;
  data: T[];
}

export const qs = (params: Record<string, string | number | undefined | null | false>) => {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params))
    if (v !== undefined && v !== null && v !== '' && v !== false) q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
};
