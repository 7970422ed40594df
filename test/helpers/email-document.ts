// A visual-editor document using every kind of block (issue 30), for the tests of its rendering,
// of templates and broadcasts saved with one, and of their delivery.
export const sampleDocument = () => ({
  version: 1,
  settings: { preheader: 'Our news this week', link_color: '#0f766e' },
  blocks: [
    { type: 'heading', id: 'h1', text: 'Hello {{{contact.first_name|there}}}', level: 1 },
    {
      type: 'text',
      id: 't1',
      html: '<p>Read <a href="https://example.com/news?a=1&amp;b=2">the news</a>, <strong>{{{contact.first_name|friend}}}</strong>.</p>',
    },
    { type: 'button', id: 'b1', text: 'Open the shop', href: 'https://example.com/shop' },
    {
      type: 'columns',
      id: 'c1',
      columns: [
        { blocks: [{ type: 'image', id: 'i1', src: 'https://example.com/a.png', alt: 'A & B', width: 200 }] },
        { blocks: [{ type: 'text', id: 't2', html: 'Right column' }] },
      ],
    },
    { type: 'divider', id: 'd1' },
    { type: 'spacer', id: 's1', height: 24 },
    { type: 'footer', id: 'f1', html: '<p>Acme Inc, 1 Main St</p>', unsubscribe: true },
  ],
});
