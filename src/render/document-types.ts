// The visual editor's document (version 1, the contract in issue 30): the shape only. It is checked
// and its rich text sanitised in templates/document.ts; render/mjml.ts turns a checked one into HTML.

export type Align = 'left' | 'center' | 'right';

export interface DocumentSettings {
  width?: number;
  background?: string;
  content_background?: string;
  font_family?: string;
  text_color?: string;
  link_color?: string;
  preheader?: string;
}

export interface HeadingBlock {
  type: 'heading';
  id: string;
  text: string;
  level: 1 | 2 | 3;
  align?: Align;
  color?: string;
}
export interface TextBlock {
  type: 'text';
  id: string;
  html: string;
  align?: Align;
}
export interface ImageBlock {
  type: 'image';
  id: string;
  src: string;
  alt: string;
  href?: string;
  width?: number;
  align?: Align;
}
export interface ButtonBlock {
  type: 'button';
  id: string;
  text: string;
  href: string;
  background?: string;
  color?: string;
  align?: Align;
}
export interface DividerBlock {
  type: 'divider';
  id: string;
  color?: string;
}
export interface SpacerBlock {
  type: 'spacer';
  id: string;
  height: number;
}
/** The blocks a column may hold: everything but columns and footer. */
export type LeafBlock = HeadingBlock | TextBlock | ImageBlock | ButtonBlock | DividerBlock | SpacerBlock;
export interface ColumnsBlock {
  type: 'columns';
  id: string;
  columns: { blocks: LeafBlock[] }[];
}
export interface FooterBlock {
  type: 'footer';
  id: string;
  html: string;
  unsubscribe: boolean;
}
export type Block = LeafBlock | ColumnsBlock | FooterBlock;

export interface EmailDocument {
  version: 1;
  settings?: DocumentSettings;
  blocks: Block[];
}

/** The font stacks a document may name (web-safe: every client has one of each stack's fonts). */
export const FONT_STACKS = [
  'Helvetica, Arial, sans-serif',
  'Arial, Helvetica, sans-serif',
  "Georgia, Times, 'Times New Roman', serif",
  "'Times New Roman', Times, serif",
  'Verdana, Geneva, sans-serif',
  'Tahoma, Verdana, sans-serif',
  "'Trebuchet MS', Helvetica, sans-serif",
  "'Courier New', Courier, monospace",
  "system-ui, -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif",
] as const;

export const DEFAULT_SETTINGS: Required<DocumentSettings> = {
  width: 600,
  background: '#f4f4f5',
  content_background: '#ffffff',
  font_family: FONT_STACKS[0],
  text_color: '#111827',
  link_color: '#2563eb',
  preheader: '',
};
