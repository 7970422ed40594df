// mjml 5 ships no types; the call Mailroom uses (render/mjml.ts). In version 5 it is async.
declare module 'mjml' {
  interface MjmlError {
    line: number;
    message: string;
    tagName: string;
    formattedMessage: string;
  }
  interface MjmlOptions {
    validationLevel?: 'strict' | 'soft' | 'skip';
    fonts?: Record<string, string>;
    keepComments?: boolean;
    ignoreIncludes?: boolean;
    minify?: boolean;
    beautify?: boolean;
  }
  export default function mjml2html(
    input: string,
    options?: MjmlOptions,
  ): Promise<{ html: string; errors: MjmlError[] }>;
}
