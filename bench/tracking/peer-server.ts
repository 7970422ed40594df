// The peer for bench/tracking: a bare node:http server answering the same paths the way the
// tracking endpoints do (a 1x1 GIF for /t/o/, a 302 for /t/c/), with no token check and no
// recording. What this machine gives for the HTTP part alone. Prints its port, then serves.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
const server = http.createServer((req, res) => {
  if (req.url?.startsWith('/t/o/')) {
    res.writeHead(200, {
      'content-type': 'image/gif',
      'content-length': GIF.length,
      'cache-control': 'no-store, no-cache, must-revalidate, max-age=0',
    });
    res.end(GIF);
  } else {
    res.writeHead(302, {
      location: 'https://shop.example.com/item?id=42',
      'cache-control': 'no-store',
      'content-length': 0,
    });
    res.end();
  }
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => console.log((server.address() as AddressInfo).port));
