// One CSV cell: RFC 4180 quoting, and no cell a spreadsheet would run as a formula: one that starts
// with = + - @ (or a tab or carriage return) gets a leading '. Every CSV export uses it.
export function csvCell(v: unknown): string {
  let s = v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}
