// libmime ships no types; the functions Mailroom uses.
declare module 'libmime' {
  const libmime: {
    decodeWords(value: string): string;
    parseHeaderValue(value: string): { value: string; params: Record<string, string> };
  };
  export default libmime;
}
