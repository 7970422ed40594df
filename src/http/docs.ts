// OpenAPI 3.1 generated from the route schemas (served at /openapi.json) and a small,
// self-contained reference page at /docs that renders it (no CDN: works offline).
import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';

export async function registerDocs(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Mailroom API',
        version: '0.1.0',
        description: 'Self-hosted email delivery with a Resend-compatible API.',
      },
      components: {
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An API key (re_...)' } },
      },
      security: [{ bearer: [] }],
    },
  });
  app.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger());
  app.get('/docs', { config: { public: true }, schema: { hide: true } }, async (_req, reply) =>
    reply.type('text/html; charset=utf-8').send(DOCS_PAGE),
  );
}

const DOCS_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Mailroom API reference</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:960px;margin:2rem auto;padding:0 1rem;color:#111;background:#fff}
@media (prefers-color-scheme:dark){body{color:#eee;background:#111}code,pre{background:#222!important}}
h2{margin-top:2rem;border-bottom:1px solid #8884}.op{margin:1rem 0;padding:.5rem 1rem;border-left:4px solid #888}
.m{font-weight:700;font-family:monospace;margin-right:.5rem}.GET{color:#0a7}.POST{color:#07c}.PATCH{color:#c80}.DELETE{color:#c33}
pre{background:#f4f4f4;padding:.5rem;overflow:auto;font-size:13px}code{background:#f4f4f4;padding:0 .2rem}
</style></head><body>
<h1>Mailroom API reference</h1>
<p>Authenticate with <code>Authorization: Bearer re_...</code>. The machine-readable document is at <a href="/openapi.json">/openapi.json</a>.</p>
<div id="ops">Loading…</div>
<script>
fetch('/openapi.json').then(r=>r.json()).then(doc=>{
  const byTag={};
  for(const [path,item] of Object.entries(doc.paths||{})) for(const [method,op] of Object.entries(item)){
    const tag=(op.tags&&op.tags[0])||'Other';(byTag[tag]=byTag[tag]||[]).push({path,method:method.toUpperCase(),op});
  }
  const el=document.getElementById('ops');el.textContent='';
  for(const tag of Object.keys(byTag).sort()){
    const h=document.createElement('h2');h.textContent=tag;el.appendChild(h);
    for(const {path,method,op} of byTag[tag]){
      const d=document.createElement('div');d.className='op';
      const t=document.createElement('div');const m=document.createElement('span');m.className='m '+method;m.textContent=method;
      const p=document.createElement('code');p.textContent=path;t.append(m,p);d.appendChild(t);
      if(op.summary){const s=document.createElement('p');s.textContent=op.summary;d.appendChild(s);}
      const body=op.requestBody&&op.requestBody.content&&op.requestBody.content['application/json'];
      if(body){const pre=document.createElement('pre');pre.textContent='Body: '+JSON.stringify(body.schema,null,2);d.appendChild(pre);}
      el.appendChild(d);
    }
  }
});
</script></body></html>`;
